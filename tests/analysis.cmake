# Analysis tests (analysis/, scripts/reproduce.sh): Python unit tests of the statistics
# helpers and of the sweep-agnostic plots and tables, an end-to-end run of a real short
# sweep through `python3 -m rcplot figures`, paper-check and make-docs, and one of a new sweep through
# `rcsim plot`, `rcsim report` and summarize (headless Chromium checks the report when
# installed: scripts/deps.sh --browser).  They need Debian's python3 with h5py, numpy and matplotlib; `python3` on
# PATH may be a pyenv one without them, hence the explicit default.
set(RCSIM_PYTHON "/usr/bin/python3" CACHE FILEPATH "Python with h5py, numpy, matplotlib")
execute_process(COMMAND ${RCSIM_PYTHON} -c "import h5py, numpy, matplotlib"
                RESULT_VARIABLE _rcsim_py_rc OUTPUT_QUIET ERROR_QUIET)
if(NOT _rcsim_py_rc EQUAL 0)
  message(WARNING "analysis tests disabled: ${RCSIM_PYTHON} cannot import h5py/numpy/matplotlib")
  return()
endif()

add_test(NAME unit_analysis_stats
         COMMAND ${RCSIM_PYTHON} -m unittest discover -s ${CMAKE_CURRENT_SOURCE_DIR}/analysis
                 -p "test_*.py")
set_tests_properties(unit_analysis_stats PROPERTIES TIMEOUT 120 LABELS analysis
                     ENVIRONMENT "RCSIM_BIN=$<TARGET_FILE:rcsim>")

# Coverage of the intervals over seeds on heavy-tailed data (docs/analysis.md,
# "Intervals over seeds"); about 20 s.
add_test(NAME unit_analysis_coverage
         COMMAND ${RCSIM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/analysis/coverage_intervals.py)
set_tests_properties(unit_analysis_coverage PROPERTIES TIMEOUT 120 LABELS analysis)

rcsim_add_script(analysis_pipeline e2e/analysis_pipeline.sh TIMEOUT 600 LABELS analysis)
set_property(TEST e2e_analysis_pipeline APPEND PROPERTY ENVIRONMENT "PYTHON=${RCSIM_PYTHON}")

rcsim_add_script(analysis_any_sweep e2e/analysis_any_sweep.sh TIMEOUT 600 LABELS analysis)
set_property(TEST e2e_analysis_any_sweep APPEND PROPERTY ENVIRONMENT "PYTHON=${RCSIM_PYTHON}")
# `rcsim compare` (strategies against a baseline, paired by seed) and the
# examples of `rcsim plot --help`, on a small sweep of its own.
rcsim_add_script(analysis_compare e2e/analysis_compare.sh TIMEOUT 300 LABELS analysis)
set_property(TEST e2e_analysis_compare APPEND PROPERTY ENVIRONMENT "PYTHON=${RCSIM_PYTHON}")
rcsim_add_script(repro_partial e2e/repro_partial.sh TIMEOUT 300)

# `python3 -m rcplot anon-recompute` recomputes rcsim's anonymity metric from the
# observation file alone (unicast, RC, RC-FT; corrupted nodes or not; both models).
rcsim_add_script(anon_recompute e2e/anon_recompute.sh TIMEOUT 300 LABELS analysis)
set_property(TEST e2e_anon_recompute APPEND PROPERTY ENVIRONMENT "PYTHON=${RCSIM_PYTHON}")

# The strategy's structure as columns (`rcsim plot --x k`) and the
# Python API (analysis/rcsim: load_jobs, load_deliveries, load_histograms) with the starter
# notebook, on a sweep made in the test (tests/e2e/analysis_api.sh).
rcsim_add_script(analysis_api e2e/analysis_api.sh TIMEOUT 600 LABELS analysis)
set_property(TEST e2e_analysis_api APPEND PROPERTY ENVIRONMENT "PYTHON=${RCSIM_PYTHON}")

# The committed figure sets were drawn by today's analysis code
# (figures/<set>/provenance.json, written by the drawing scripts).  Fails, naming the set
# and what changed, when one is stale: scripts/reproduce.sh --redraw [--quick].
# No set list: every committed set (paper, exact, paper-quick, exact-quick) is checked.
add_test(NAME analysis_check_figures
         COMMAND ${RCSIM_PYTHON} -B -m rcplot check-figures)
set_tests_properties(analysis_check_figures PROPERTIES TIMEOUT 60 LABELS "analysis;figures"
                     ENVIRONMENT "PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/../analysis")

# The interactive report in headless Chromium (charts drawn, table, no script
# error); skipped without Chromium (scripts/deps.sh --browser).
rcsim_add_script(report_browser e2e/report_browser.sh TIMEOUT 300 LABELS analysis)
set_property(TEST e2e_report_browser APPEND PROPERTY ENVIRONMENT "PYTHON=${RCSIM_PYTHON}")
set_tests_properties(e2e_report_browser PROPERTIES SKIP_RETURN_CODE 77)

# Summarize's column path (analysis/rcplot/coltable.py) gives the generic
# path's output byte for byte on real files.
rcsim_add_script(summarize_columns e2e/summarize_columns.sh TIMEOUT 300 LABELS analysis)
set_property(TEST e2e_summarize_columns APPEND PROPERTY ENVIRONMENT "PYTHON=${RCSIM_PYTHON}")

# One story in every view (docs/analysis.md): an anonymity sweep through summarize, report,
# `plot --kind tradeoff` and `rcsim diff` (itself, a rerun, a changed parameter).
rcsim_add_script(analysis_story e2e/analysis_story.sh TIMEOUT 300 LABELS analysis)
set_property(TEST e2e_analysis_story APPEND PROPERTY ENVIRONMENT "PYTHON=${RCSIM_PYTHON}")

# analysis/ is one package: no script edits sys.path, only rcplot.results reads results
# files, no new script beside rcplot/, and `python3 -m rcplot`'s tool list matches
# rcplot/tools/ and the rcsim commands (tests/check_analysis_package.py; checks itself).
add_test(NAME unit_analysis_package
         COMMAND ${RCSIM_PYTHON} -B ${CMAKE_CURRENT_SOURCE_DIR}/check_analysis_package.py)
set_tests_properties(unit_analysis_package PROPERTIES TIMEOUT 60 LABELS analysis)

# The stopping rule of a `seeds: until` sweep (`rcsim sweep --until`) and where each
# configuration stopped, in summarize, report and the Python API (rcplot/until.py).
rcsim_add_script(analysis_until e2e/analysis_until.sh TIMEOUT 300 LABELS analysis)
set_property(TEST e2e_analysis_until APPEND PROPERTY ENVIRONMENT "PYTHON=${RCSIM_PYTHON}")
