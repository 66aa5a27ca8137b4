# sweep.c (expansion, lifecycle), sweep_yaml.c (reading the file) and sweep_bind.c (traces)
# share exp/sweep_internal.h; cost.c is the cost model; result.c and run.c are the simulator's.
set(RCSIM_EXP_SOURCES src/exp/param.c src/exp/job.c src/exp/result.c src/exp/run.c
    src/exp/sweep.c src/exp/sweep_yaml.c src/exp/sweep_bind.c src/exp/cost.c
    src/exp/until.c src/exp/until_plan.c)
