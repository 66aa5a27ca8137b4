set(RCSIM_FARM_SOURCES src/farm/farm.c src/farm/worker.c src/farm/exec.c src/farm/store.c
    src/farm/progress.c src/farm/preflight.c)
