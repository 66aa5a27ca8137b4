rcsim_add_script(cli_errors e2e/cli_errors.sh TIMEOUT 120)
rcsim_add_script(run_determinism e2e/run_determinism.sh TIMEOUT 300)
rcsim_add_script(study_tools e2e/study_tools.sh TIMEOUT 300 LABELS analysis)
