# farm: end-to-end tests of `rcsim sweep` under the real MPI launcher (tests/e2e/farm_*.sh).
rcsim_add_script(farm_consistency e2e/farm_consistency.sh TIMEOUT 300 LABELS mpi)
rcsim_add_script(farm_resume e2e/farm_resume.sh TIMEOUT 300 LABELS mpi)
rcsim_add_script(farm_sigterm e2e/farm_sigterm.sh TIMEOUT 300 LABELS mpi)
rcsim_add_script(farm_refuse e2e/farm_refuse.sh TIMEOUT 120 LABELS mpi)
rcsim_add_script(farm_extend e2e/farm_extend.sh TIMEOUT 300 LABELS mpi)
rcsim_add_script(farm_shard e2e/farm_shard.sh TIMEOUT 300 LABELS mpi)
rcsim_add_script(farm_reader e2e/farm_reader.sh TIMEOUT 300 LABELS mpi)
rcsim_add_script(farm_until e2e/farm_until.sh TIMEOUT 300 LABELS mpi)
