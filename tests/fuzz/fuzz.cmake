# libFuzzer harnesses (docs/fuzzing.md).  Built only with -DRCSIM_FUZZ=ON and
# clang; scripts/fuzz.sh configures, builds and runs them.
#
# The code under test is compiled again with coverage instrumentation
# (-fsanitize=fuzzer-no-link) into separate static libraries, so the normal
# rcsim_core stays uninstrumented.  Static linking pulls in only the objects a
# harness needs.
if(RCSIM_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "RCSIM_FUZZ needs clang: configure with -DCMAKE_C_COMPILER=clang")
  endif()
  set(RCSIM_FUZZ_SAN -fsanitize=address,undefined -fno-sanitize-recover=undefined
      -fno-omit-frame-pointer)

  # The trace reader needs only these three files.
  add_library(rcsim_fuzz_trace STATIC src/core/err.c src/core/log.c src/trace/avail.c)
  # The sweep parser validates jobs against the whole parameter registry.
  add_library(rcsim_fuzz_core STATIC ${RCSIM_CORE_SOURCES} ${RCSIM_TRACE_SOURCES}
              ${RCSIM_LOOPIX_SOURCES} ${RCSIM_MULTICAST_SOURCES} ${RCSIM_WORKLOAD_SOURCES}
              ${RCSIM_EXP_SOURCES})
  foreach(lib rcsim_fuzz_trace rcsim_fuzz_core)
    target_include_directories(${lib} PUBLIC src ${CMAKE_BINARY_DIR}/generated)
    target_compile_options(${lib} PRIVATE -fsanitize=fuzzer-no-link ${RCSIM_FUZZ_SAN})
    target_link_libraries(${lib} PUBLIC ${RCSIM_CORE_LIBS})
    add_dependencies(${lib} rcsim_build_info)
  endforeach()

  set(RCSIM_FUZZ_TARGETS)
  foreach(h trace trace_gz sweep)
    add_executable(fuzz_${h} tests/fuzz/fuzz_${h}.c)
    target_compile_options(fuzz_${h} PRIVATE -fsanitize=fuzzer ${RCSIM_FUZZ_SAN})
    target_link_options(fuzz_${h} PRIVATE -fsanitize=fuzzer ${RCSIM_FUZZ_SAN})
    list(APPEND RCSIM_FUZZ_TARGETS fuzz_${h})
  endforeach()
  target_link_libraries(fuzz_trace PRIVATE rcsim_fuzz_trace)
  target_link_libraries(fuzz_trace_gz PRIVATE rcsim_fuzz_trace)
  target_link_libraries(fuzz_sweep PRIVATE rcsim_fuzz_core)
  add_custom_target(fuzz DEPENDS ${RCSIM_FUZZ_TARGETS})
endif()
