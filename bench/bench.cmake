# Benchmark executables (issue 6), not part of `all`: build them with
#   cmake --build build --target bench_evq
# bench_evq_heap4 links the engine as it is (src/core/evq.c, a 4-ary heap);
# every other variant rebuilds the simulator core with bench/evq_<v>.c in place
# of src/core/evq.c and bench/evq_<v>.h installed as "core/evq.h" in a
# variant include directory searched before src/.  src/ is not modified.
set(RCSIM_BENCH_CORE_SOURCES ${RCSIM_CORE_SOURCES} ${RCSIM_LOOPIX_SOURCES}
    ${RCSIM_MULTICAST_SOURCES} ${RCSIM_WORKLOAD_SOURCES} ${RCSIM_EXP_SOURCES})
list(REMOVE_ITEM RCSIM_BENCH_CORE_SOURCES src/core/evq.c)

add_executable(bench_evq_heap4 EXCLUDE_FROM_ALL bench/bench_evq.c)
target_link_libraries(bench_evq_heap4 PRIVATE rcsim_core)
target_compile_definitions(bench_evq_heap4 PRIVATE BENCH_EVQ_NAME="heap4")
set(RCSIM_BENCH_EVQ_TARGETS bench_evq_heap4)

foreach(v heap2 heap4b pairing)
  configure_file(bench/evq_${v}.h ${CMAKE_BINARY_DIR}/bench/evq-${v}/core/evq.h COPYONLY)
  add_executable(bench_evq_${v} EXCLUDE_FROM_ALL bench/bench_evq.c bench/evq_${v}.c
                 ${RCSIM_BENCH_CORE_SOURCES})
  target_include_directories(bench_evq_${v} BEFORE PRIVATE ${CMAKE_BINARY_DIR}/bench/evq-${v})
  target_include_directories(bench_evq_${v} PRIVATE src ${CMAKE_BINARY_DIR}/generated)
  target_link_libraries(bench_evq_${v} PRIVATE GSL::gsl GSL::gslcblas ZLIB::ZLIB PkgConfig::YAML m)
  target_compile_definitions(bench_evq_${v} PRIVATE BENCH_EVQ_NAME="${v}")
  list(APPEND RCSIM_BENCH_EVQ_TARGETS bench_evq_${v})
endforeach()

add_custom_target(bench_evq DEPENDS ${RCSIM_BENCH_EVQ_TARGETS})
