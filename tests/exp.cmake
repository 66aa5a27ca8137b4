# Tests of the experiment description (src/exp): sweep files, expansion, ids, `rcsim plan`.
# test_sweep also runs the real binary for `rcsim plan` (RCSIM_BINARY), and reads
# experiments/*.yaml and tests/data/sweeps/*.yaml from the source tree.
rcsim_add_unit(sweep TIMEOUT 120)
# test_until: the interval of `seeds: {until}` equals the analysis's (stats.seed_interval).
rcsim_add_unit(until TIMEOUT 60)
# test_result: histogram geometry and quantile accuracy, compact result images.
rcsim_add_unit(result TIMEOUT 120)
