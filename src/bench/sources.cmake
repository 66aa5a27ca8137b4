# The benchmark harness behind `rcsim bench` (bench/bench.h); library rcsim_bench.
# (The event-queue micro-benchmarks are elsewhere: bench/bench.cmake at the top.)
set(RCSIM_BENCH_SOURCES src/bench/bench.c)
