set(RCSIM_WORKLOAD_SOURCES src/workload/app.c)
