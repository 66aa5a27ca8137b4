# The benchmark harness behind `rcsim bench` (speed/speed.h); library rcsim_speed.
# It is compiled into the binary, so it lives in src/; everything else about measuring
# (the queue and results-file benchmarks, identity checks, fits) is in bench/ at the top.
set(RCSIM_SPEED_SOURCES src/speed/speed.c)
