"""rcplot.tools: the analysis programs, each a module with main(argv) run by
`python3 -m rcplot TOOL [ARGS]` (rcplot/__main__.py lists them) or by the rcsim commands
(`rcsim plot`, `rcsim summarize`, ...: src/cli/cmd_analysis.c).  They read results only
through rcplot.results and draw through rcplot's figure and plot modules."""
