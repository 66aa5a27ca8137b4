rcsim_add_unit(schedule)
rcsim_add_unit(strategies)
rcsim_add_unit(paper_numbers TIMEOUT 900 REAL_TRACES paper_numbers_traces)
rcsim_add_unit(beyond)
