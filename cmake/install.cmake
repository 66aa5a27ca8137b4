# Installing rcsim like HPC software:
#
#   cmake --install build --prefix DIR
#
#   DIR/bin/rcsim                          the binary
#   DIR/share/rcsim/analysis/              the Python analysis (`rcsim figures`, `rcsim summarize`)
#   DIR/share/rcsim/slurm/                 the batch templates `rcsim slurm` fills in (for reading:
#                                          the binary embeds them)
#   DIR/share/rcsim/experiments/           the sweep files (paper figures, quick, ci-small, ...)
#   DIR/share/rcsim/scripts/get-traces.sh  fetches the paper's traces into
#                                          DIR/share/rcsim/data/availability (its default there)
#   DIR/share/doc/rcsim/                   README.md, docs/, data/README.md
#   DIR/share/modulefiles/rcsim/V.lua      modulefile for Lmod
#   DIR/share/modulefiles/rcsim/V          the same for Environment Modules (Tcl); Lmod prefers
#                                          the .lua file when it sees both
#
# rcsim finds share/rcsim relative to its own path (src/cli/share.h), so the installed tree
# needs no source checkout.  A build tree gets the same layout through links
# (BUILD/share/rcsim/* -> the source tree), so `build/rcsim figures` works there too.
# The modulefiles name the prefix the install was made with (absolute, so a modulefile
# linked into a site's module tree still finds it); RCSIM_MODULEFILE_DEPENDS lists modules
# they load first (e.g. "openmpi/4.1 hdf5/1.10" on a cluster whose MPI and HDF5 are modules).
set(RCSIM_MODULEFILE_DEPENDS "" CACHE STRING
    "Modules the installed rcsim modulefile loads first (space-separated)")

include(GNUInstallDirs)

install(TARGETS rcsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY analysis/ DESTINATION ${CMAKE_INSTALL_DATADIR}/rcsim/analysis
        PATTERN __pycache__ EXCLUDE PATTERN "*.pyc" EXCLUDE)
install(FILES slurm/rcsim-sweep.sbatch.in slurm/rcsim-merge.sbatch.in slurm/README.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/rcsim/slurm)
install(DIRECTORY experiments/ DESTINATION ${CMAKE_INSTALL_DATADIR}/rcsim/experiments)
# scripts/get-traces.sh fetches the paper's traces; installed, its default target is
# PREFIX/share/rcsim/data/availability, the directory the modulefiles point RCSIM_DATA_DIR at.
if(EXISTS ${CMAKE_SOURCE_DIR}/scripts/get-traces.sh)
  install(PROGRAMS scripts/get-traces.sh DESTINATION ${CMAKE_INSTALL_DATADIR}/rcsim/scripts)
endif()
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(FILES data/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/data)

# The modulefiles are written at install time, when the prefix (cmake --install --prefix)
# is known.
set(RCSIM_MODULE_DEPENDS_LUA "")
set(RCSIM_MODULE_DEPENDS_TCL "")
string(REPLACE " " ";" _rcsim_deps "${RCSIM_MODULEFILE_DEPENDS}")
foreach(m ${_rcsim_deps})
  if(m)
    string(APPEND RCSIM_MODULE_DEPENDS_LUA "depends_on(\"${m}\")\n")
    string(APPEND RCSIM_MODULE_DEPENDS_TCL "module load ${m}\n")
  endif()
endforeach()
if(CMAKE_BUILD_TYPE)
  set(RCSIM_MODULE_BUILD "${CMAKE_BUILD_TYPE}, ${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER_VERSION}")
else()
  set(RCSIM_MODULE_BUILD "${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER_VERSION}")
endif()
foreach(kind lua tcl)
  # First pass now (version, build, dependencies); the prefix is filled in at install time.
  set(RCSIM_MODULE_PREFIX "@RCSIM_MODULE_PREFIX@")
  configure_file(${CMAKE_SOURCE_DIR}/cmake/modulefile.${kind}.in
                 ${CMAKE_BINARY_DIR}/modulefiles/rcsim.${kind}.in @ONLY)
endforeach()
install(CODE "
  set(RCSIM_MODULE_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  set(_dir \"${CMAKE_BINARY_DIR}/modulefiles/install\")
  configure_file(\"${CMAKE_BINARY_DIR}/modulefiles/rcsim.lua.in\" \"\${_dir}/${PROJECT_VERSION}.lua\" @ONLY)
  configure_file(\"${CMAKE_BINARY_DIR}/modulefiles/rcsim.tcl.in\" \"\${_dir}/${PROJECT_VERSION}\" @ONLY)
  file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/modulefiles/rcsim\"
       TYPE FILE FILES \"\${_dir}/${PROJECT_VERSION}.lua\" \"\${_dir}/${PROJECT_VERSION}\")
")

# The build tree's share/rcsim: links to the source tree beside the binary.
if(CMAKE_RUNTIME_OUTPUT_DIRECTORY)
  set(_rcsim_bin_dir ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
else()
  set(_rcsim_bin_dir ${CMAKE_BINARY_DIR})
endif()
file(MAKE_DIRECTORY ${_rcsim_bin_dir}/share/rcsim)
foreach(d analysis slurm experiments)
  if(NOT EXISTS ${_rcsim_bin_dir}/share/rcsim/${d})
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/${d} ${_rcsim_bin_dir}/share/rcsim/${d} SYMBOLIC)
  endif()
endforeach()
