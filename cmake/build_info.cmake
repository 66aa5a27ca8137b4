# Build identity, computed when the binary is BUILT (a `cmake -P` script run by the
# rcsim_build_info target on every build; see src/core/build.h).  Writes OUT from
# src/core/build_info.c.in; configure_file leaves OUT untouched when nothing changed, so an
# unchanged tree rebuilds nothing and an edited one recompiles this one file.
#
# Inputs (-D): SRC_DIR (source tree), OUT (generated C file), TEMPLATE, CONFIG (the build
# configuration: type, compiler, flags, library versions; fixed at configure time).
cmake_minimum_required(VERSION 3.20)

set(rev "unknown")
set(dirty -1)
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --tags
                  WORKING_DIRECTORY ${SRC_DIR} OUTPUT_VARIABLE out RESULT_VARIABLE rc
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND out)
    set(rev "${out}")
    if(rev MATCHES "-dirty$")
      set(dirty 1)
    else()
      set(dirty 0)
    endif()
  endif()
endif()

# What the binary is made of: every file under src/ and the CMake files that say how it is
# compiled, by path and content.  The git revision alone cannot tell two dirty trees apart.
file(GLOB_RECURSE files RELATIVE ${SRC_DIR} ${SRC_DIR}/src/* ${SRC_DIR}/cmake/*)
list(APPEND files CMakeLists.txt)
list(FILTER files EXCLUDE REGEX "(~|\\.swp|\\.orig|\\.rej)$")
list(SORT files)
set(manifest "")
foreach(f IN LISTS files)
  file(SHA256 ${SRC_DIR}/${f} h)
  string(APPEND manifest "${h}  ${f}\n")
endforeach()
string(SHA256 sources "${manifest}")
list(LENGTH files n_files)

# The id compared between runs: same sources and same configuration, same results.
string(SHA256 id "${sources}\n${CONFIG}")
string(SUBSTRING "${id}" 0 16 id)

# C string literal escaping for the free-form texts.
foreach(v rev CONFIG)
  string(REPLACE "\\" "\\\\" ${v}_c "${${v}}")
  string(REPLACE "\"" "\\\"" ${v}_c "${${v}_c}")
endforeach()
set(RCSIM_BUILD_ID "${id}")
set(RCSIM_BUILD_REVISION "${rev_c}")
set(RCSIM_BUILD_DIRTY "${dirty}")
set(RCSIM_BUILD_SOURCES "${sources}")
set(RCSIM_BUILD_SOURCE_FILES "${n_files}")
set(RCSIM_BUILD_CONFIG "${CONFIG_c}")
configure_file(${TEMPLATE} ${OUT} @ONLY)
