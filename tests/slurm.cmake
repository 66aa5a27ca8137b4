# slurm: `rcsim slurm` scripts run on a real single-node SLURM cluster (scripts/slurm-local.sh).
# Exit code 77 = skipped (slurm-wlm not installed, not root, or a foreign SLURM config);
# `ctest -LE slurm` leaves it out.  RCSIM_SLURM_TIMELIMIT_TEST=1 adds a slow real --time case.
rcsim_add_script(slurm_sweep e2e/slurm_sweep.sh TIMEOUT 300 LABELS slurm)
set_tests_properties(e2e_slurm_sweep PROPERTIES SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
# The generator alone (no cluster needed): directives, paths, quoting, usage errors.
rcsim_add_script(slurm_generate e2e/slurm_generate.sh TIMEOUT 60)
rcsim_add_script(slurm_hash e2e/slurm_hash.sh TIMEOUT 60)
rcsim_add_script(slurm_merge_rerun e2e/slurm_merge_rerun.sh TIMEOUT 120)
