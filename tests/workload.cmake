# Workload tests: availability traces (avail) and the synthetic generator (synth).
rcsim_add_unit(avail TIMEOUT 120 REAL_TRACES avail_ref)
rcsim_add_unit(synth TIMEOUT 120)
rcsim_add_script(trace_cli trace_cli.sh TIMEOUT 120)
# Traces identified by content (trace/trace_id, exp/job binding).
rcsim_add_unit(trace_id TIMEOUT 120)
