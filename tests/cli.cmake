rcsim_add_script(cli_errors e2e/cli_errors.sh TIMEOUT 120)
rcsim_add_script(run_determinism e2e/run_determinism.sh TIMEOUT 300)
# `rcsim bench --quick` end to end (a few seconds; the harness is src/speed/).
rcsim_add_script(bench_smoke e2e/bench_smoke.sh TIMEOUT 300 LABELS bench)
rcsim_add_script(study_tools e2e/study_tools.sh TIMEOUT 300 LABELS analysis)
# `cmake --install` into a temporary prefix, the modulefiles under Lmod (and plain Tcl), and an
# installed sweep + figures run through the module.  77 = skipped (no Lmod).
rcsim_add_script(install e2e/install.sh TIMEOUT 300 LABELS install)
set_property(TEST e2e_install APPEND PROPERTY ENVIRONMENT "RCSIM_BUILD_DIR=${CMAKE_BINARY_DIR}")
set_tests_properties(e2e_install PROPERTIES SKIP_RETURN_CODE 77)
