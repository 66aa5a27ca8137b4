set(RCSIM_WORKLOAD_SOURCES src/workload/avail.c src/workload/app.c src/workload/synth.c
    src/workload/trace_id.c)
