# Every .c file of src/multicast/: a new strategy (docs/extending.md) or part of mc is
# found without an edit here.  CONFIGURE_DEPENDS makes the build re-run CMake when a file
# is added or removed, so a plain `cmake --build` picks it up.
file(GLOB RCSIM_MULTICAST_SOURCES RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_LIST_DIR}/*.c)
