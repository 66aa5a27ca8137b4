# sweep.c belongs to the sweep work (issue 4); result.c and run.c to the simulator.
set(RCSIM_EXP_SOURCES src/exp/param.c src/exp/job.c src/exp/result.c src/exp/run.c)
if(EXISTS ${CMAKE_SOURCE_DIR}/src/exp/sweep.c)
  list(APPEND RCSIM_EXP_SOURCES src/exp/sweep.c)
endif()
