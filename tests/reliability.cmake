# reliability: crash/limit tests and memory checking (tests/e2e/rel_*.sh, docs/reliability.md).
# Exit code 77 = skipped (no tmpfs mount permission, valgrind missing).
rcsim_add_script(rel_fulldisk e2e/rel_fulldisk.sh TIMEOUT 300 LABELS mpi)
set_tests_properties(e2e_rel_fulldisk PROPERTIES SKIP_RETURN_CODE 77)
rcsim_add_script(rel_check e2e/rel_check.sh TIMEOUT 300)
set_tests_properties(e2e_rel_check PROPERTIES SKIP_RETURN_CODE 77)
# valgrind is slow and meaningless under ASan: label "slow" (the sanitizer pass excludes it).
rcsim_add_script(rel_valgrind e2e/rel_valgrind.sh TIMEOUT 400 LABELS slow)
set_tests_properties(e2e_rel_valgrind PROPERTIES SKIP_RETURN_CODE 77)
rcsim_add_script(rel_jobcrash e2e/rel_jobcrash.sh TIMEOUT 300 LABELS mpi)
