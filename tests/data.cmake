# Data: scripts/get-traces.sh against local mirrors (offline).  The tests of the paper's own
# numbers that need the real traces are registered by their modules with REAL_TRACES
# (tests/CMakeLists.txt).
rcsim_add_script(get_traces e2e/get_traces.sh TIMEOUT 120)
