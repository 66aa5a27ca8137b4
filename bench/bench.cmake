# The benchmarks outside the binary (bench/README.md); `rcsim bench` is src/speed/.
# The event-queue benchmark, not part of `all`: build it with
#   cmake --build build --target bench_evq
# bench_evq_heap2b is the engine's queue as it is (src/core/evq.c), built with every
# simulator source compiled into the executable (bench/bench_evq.c: hold and job modes;
# docs/performance.md, "The event-queue study").  The study's other variants (bench/evq_heap2,
# heap4, heap4b, pairing) were written against the queue's API of that time; the queue has
# since grown (peeked values, sequence pushes, reservation) and they no longer built, so they
# went (their code is in the history, their results in docs/performance.md).
set(RCSIM_BENCH_CORE_SOURCES ${RCSIM_CORE_SOURCES} ${RCSIM_TRACE_SOURCES} ${RCSIM_LOOPIX_SOURCES}
    ${RCSIM_ANON_SOURCES} ${RCSIM_MULTICAST_SOURCES} ${RCSIM_WORKLOAD_SOURCES}
    ${RCSIM_EXP_SOURCES})
list(REMOVE_ITEM RCSIM_BENCH_CORE_SOURCES src/core/evq.c)

add_executable(bench_evq_heap2b EXCLUDE_FROM_ALL bench/bench_evq.c src/core/evq.c
               ${RCSIM_BENCH_CORE_SOURCES})
target_include_directories(bench_evq_heap2b PRIVATE src ${CMAKE_BINARY_DIR}/generated)
target_link_libraries(bench_evq_heap2b PRIVATE ${RCSIM_CORE_LIBS})
add_dependencies(bench_evq_heap2b rcsim_build_info)
target_compile_definitions(bench_evq_heap2b PRIVATE BENCH_EVQ_NAME="heap2b")
add_custom_target(bench_evq DEPENDS bench_evq_heap2b)

# Results-file benchmark: writes synthetic sweeps of N jobs through the real
# writer and journal; bench/ingest.sh runs it and the farm ingest measurements.
add_executable(bench_results EXCLUDE_FROM_ALL bench/results_bench.c)
target_link_libraries(bench_results PRIVATE rcsim_io)
# The layout measurements of docs/results-layout.md ("Why this layout"): plain HDF5.
add_executable(bench_layout EXCLUDE_FROM_ALL bench/layout_bench.c)
target_link_libraries(bench_layout PRIVATE HDF5::HDF5 m)
