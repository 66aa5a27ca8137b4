"""rcplot: analysis of rcsim results files (docs/results-layout.md) into the paper's
figures (figures.py), the paper-vs-ours comparison (tools/paper_check.py) and docs/figures.md.
Runs on Debian's /usr/bin/python3 with python3-h5py, numpy and matplotlib only."""
