# Benchmark executables (issue 6), not part of `all`: build them with
#   cmake --build build --target bench_evq
# bench_evq_heap2b is the engine as it is (src/core/evq.c; the 4-ary heap it
# replaced in issue 18 is bench/evq_heap4.c);
# every other variant rebuilds the simulator core with bench/evq_<v>.c in place
# of src/core/evq.c.  The array heaps (heap2, heap2b, heap4b) keep the core's
# record layout and compile against src/core/evq.h itself; the pairing heap has
# its own layout, so bench/evq_pairing.h is installed as "core/evq.h" in a
# variant include directory searched before src/.  src/ is not modified.
set(RCSIM_BENCH_CORE_SOURCES ${RCSIM_CORE_SOURCES} ${RCSIM_TRACE_SOURCES} ${RCSIM_LOOPIX_SOURCES}
    ${RCSIM_MULTICAST_SOURCES} ${RCSIM_WORKLOAD_SOURCES} ${RCSIM_EXP_SOURCES})
list(REMOVE_ITEM RCSIM_BENCH_CORE_SOURCES src/core/evq.c)

# The baseline is built the same way as the variants (all sources compiled into
# the executable), so code layout does not favour one side.
add_executable(bench_evq_heap2b EXCLUDE_FROM_ALL bench/bench_evq.c src/core/evq.c
               ${RCSIM_BENCH_CORE_SOURCES})
target_include_directories(bench_evq_heap2b PRIVATE src ${CMAKE_BINARY_DIR}/generated)
target_link_libraries(bench_evq_heap2b PRIVATE ${RCSIM_CORE_LIBS})
add_dependencies(bench_evq_heap2b rcsim_build_info)
target_compile_definitions(bench_evq_heap2b PRIVATE BENCH_EVQ_NAME="heap2b")
set(RCSIM_BENCH_EVQ_TARGETS bench_evq_heap2b)

configure_file(bench/evq_pairing.h ${CMAKE_BINARY_DIR}/bench/evq-pairing/core/evq.h COPYONLY)
foreach(v heap2 heap4 heap4b pairing)
  add_executable(bench_evq_${v} EXCLUDE_FROM_ALL bench/bench_evq.c bench/evq_${v}.c
                 ${RCSIM_BENCH_CORE_SOURCES})
  if(v STREQUAL "pairing")
    target_include_directories(bench_evq_${v} BEFORE PRIVATE ${CMAKE_BINARY_DIR}/bench/evq-${v})
  endif()
  target_include_directories(bench_evq_${v} PRIVATE src ${CMAKE_BINARY_DIR}/generated)
  target_link_libraries(bench_evq_${v} PRIVATE ${RCSIM_CORE_LIBS})
  add_dependencies(bench_evq_${v} rcsim_build_info)
  target_compile_definitions(bench_evq_${v} PRIVATE BENCH_EVQ_NAME="${v}")
  list(APPEND RCSIM_BENCH_EVQ_TARGETS bench_evq_${v})
endforeach()

add_custom_target(bench_evq DEPENDS ${RCSIM_BENCH_EVQ_TARGETS})

# The core's event-queue unit tests (tests/test_evq.c), built against each
# variant, so a candidate replacement is checked against the same invariants
# (part of the bench_evq target; bench/run_evq.py runs them first).
# pkg_check_modules caches RCSIM_BENCH_CRITERION_FOUND but not the imported target, so a
# later configure with RCSIM_BUILD_TESTING=OFF would still see "found" and name a target that
# does not exist: test the target itself.
if(RCSIM_BUILD_TESTING)
  pkg_check_modules(RCSIM_BENCH_CRITERION IMPORTED_TARGET criterion)
endif()
if(TARGET PkgConfig::RCSIM_BENCH_CRITERION)
  foreach(v heap2 heap4 heap4b pairing)
    add_executable(test_evq_${v} EXCLUDE_FROM_ALL tests/test_evq.c bench/evq_${v}.c
                   ${RCSIM_BENCH_CORE_SOURCES})
    if(v STREQUAL "pairing")
      target_include_directories(test_evq_${v} BEFORE PRIVATE ${CMAKE_BINARY_DIR}/bench/evq-${v})
    endif()
    target_include_directories(test_evq_${v} PRIVATE src ${CMAKE_BINARY_DIR}/generated)
    target_link_libraries(test_evq_${v} PRIVATE PkgConfig::RCSIM_BENCH_CRITERION ${RCSIM_CORE_LIBS})
    add_dependencies(test_evq_${v} rcsim_build_info)
    add_dependencies(bench_evq test_evq_${v})
  endforeach()
endif()

# `rcsim bench --quick` end to end (a few seconds), registered here because the
# bench area has no tests/<area>.cmake of its own.
if(RCSIM_BUILD_TESTING AND COMMAND rcsim_add_script)
  rcsim_add_script(bench_smoke tests/e2e/bench_smoke.sh TIMEOUT 300 LABELS bench)
endif()

# Results-file benchmark (issue 13): writes synthetic sweeps of N jobs through the real
# writer and journal; bench/ingest.sh runs it and the farm ingest measurements.
add_executable(bench_results EXCLUDE_FROM_ALL bench/results_bench.c)
target_link_libraries(bench_results PRIVATE rcsim_io)
# The layout measurements of docs/results-layout.md ("Why this layout"): plain HDF5.
add_executable(bench_layout EXCLUDE_FROM_ALL bench/layout_bench.c)
target_link_libraries(bench_layout PRIVATE HDF5::HDF5 m)
