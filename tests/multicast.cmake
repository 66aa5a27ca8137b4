rcsim_add_unit(schedule)
rcsim_add_unit(strategies)
rcsim_add_unit(ledger)
rcsim_add_unit(paper_numbers TIMEOUT 900 REAL_TRACES paper_numbers_traces)
rcsim_add_unit(beyond)
rcsim_add_unit(adversary)
rcsim_add_script(adversary_study e2e/adversary_study.sh TIMEOUT 300 LABELS analysis)
rcsim_add_unit(population)
rcsim_add_script(population_cli e2e/population_cli.sh TIMEOUT 300 LABELS analysis)
rcsim_add_unit(strategy_table)
rcsim_add_script(provider_fanout e2e/provider_fanout.sh TIMEOUT 300 LABELS analysis)
rcsim_add_script(population_model e2e/population_model.sh TIMEOUT 300 LABELS analysis)
# The strategy lists of README.md and docs/architecture.md are the ones the strategy table
# gives (tests/check_strategy_lists.sh --write rewrites them).
add_test(NAME unit_strategy_lists COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_strategy_lists.sh
                                          $<TARGET_FILE:rcsim> ${CMAKE_SOURCE_DIR})
set_tests_properties(unit_strategy_lists PROPERTIES TIMEOUT 60)
