# Anonymity against a global passive adversary (src/anon/): the single Poisson
# mix against its exact value, the directions of the metric, the options.  The independent
# recomputation from --anon-trace needs Debian's python3 (tests/analysis.cmake).
rcsim_add_unit(anonymity TIMEOUT 900)
# The sender view and epsilon on a case computed by hand, dense and by the log
# (docs/spec.md §10.4; white-box: it drives src/anon/'s pools directly).
rcsim_add_unit(anon_sender TIMEOUT 60)
# The long-term observer's estimators (docs/spec.md §11): ranking metrics by hand, planted
# cases, and the textbook statistical disclosure attack against its closed form.
rcsim_add_unit(disclosure TIMEOUT 120)
rcsim_add_script(disclosure e2e/disclosure.sh TIMEOUT 300)
# The learning curve under store_raw through a real mpirun sweep and the analysis reader.
rcsim_add_script(disclosure_curve e2e/disclosure_curve.sh TIMEOUT 300 LABELS analysis)
