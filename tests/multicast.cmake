rcsim_add_unit(schedule)
rcsim_add_unit(strategies)
rcsim_add_unit(paper_numbers TIMEOUT 900)
rcsim_add_unit(beyond)
