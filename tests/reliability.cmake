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
# Results that cannot lie (issue 14): one test per case, docs/reliability.md "Integrity".
rcsim_add_script(rel_trace_identity e2e/rel_trace_identity.sh TIMEOUT 300)
rcsim_add_script(rel_build_identity e2e/rel_build_identity.sh TIMEOUT 900 LABELS slow)
set_tests_properties(e2e_rel_build_identity PROPERTIES SKIP_RETURN_CODE 77)
rcsim_add_script(rel_lock e2e/rel_lock.sh TIMEOUT 300 LABELS mpi)
rcsim_add_script(rel_inputs e2e/rel_inputs.sh TIMEOUT 300 LABELS mpi)
rcsim_add_script(rel_stored_options e2e/rel_stored_options.sh TIMEOUT 300)
rcsim_add_script(rel_out_dir e2e/rel_out_dir.sh TIMEOUT 300 LABELS mpi)
rcsim_add_script(rel_json e2e/rel_json.sh TIMEOUT 300)
# Results that cannot lie, round 2 (issue 27): every way in.  docs/reliability.md "Integrity, round 2".
rcsim_add_script(rel_worker_build e2e/rel_worker_build.sh TIMEOUT 120 LABELS mpi)
rcsim_add_script(rel_lock_link e2e/rel_lock_link.sh TIMEOUT 120)
rcsim_add_script(rel_check_restore e2e/rel_check_restore.sh TIMEOUT 120)
set_tests_properties(e2e_rel_check_restore PROPERTIES SKIP_RETURN_CODE 77)
rcsim_add_script(quickstart_configure e2e/quickstart_configure.sh TIMEOUT 180)
set_tests_properties(e2e_quickstart_configure PROPERTIES SKIP_RETURN_CODE 77)
rcsim_add_script(rel_merge_alike e2e/rel_merge_alike.sh TIMEOUT 120)
rcsim_add_script(rel_run_out e2e/rel_run_out.sh TIMEOUT 120)
rcsim_add_script(rel_levels_kill e2e/rel_levels_kill.sh TIMEOUT 120)
