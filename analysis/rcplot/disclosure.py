"""disclosure: the long-term observer's learning curve (docs/disclosure.md), read from a
results file's /disclosure/curve (docs/results-layout.md) through rcplot.results.

  from rcplot import results, disclosure
  t = results.load_table("study.h5")
  c = disclosure.curve(t, row)   # {field: array} over CURVE_FIELDS, one per checkpoint

Kept apart from rcplot/results.py, whose bytes the committed figure sets record.
"""
import numpy as np

# The columns of /disclosure/curve (src/io/h5out_ragged.def; tests/check_results_columns.sh).
CURVE_FIELDS = ("multicasts", "time_s", "precision", "recall", "auc", "source_top1",
                "source_entropy_bits")


def curve(table, row):
    """The learning curve (disclosure with store_raw) of job `row` of a results.Table:
    {field: array} over CURVE_FIELDS, one element per checkpoint (empty arrays for a job
    without it, or a file from before the curve)."""
    fi = int(table.file_of_row[row])
    if "disclosure/curve" not in table._file(fi):
        return {k: np.zeros(0) for k in CURVE_FIELDS}
    g, lo, hi = table._slice("disclosure/curve", row)
    return {k: g[k][lo:hi] for k in CURVE_FIELDS}


def curves(table, rows=None):
    """The curves of many rows, each file's columns read once: (row, {field: array}) where
    row[i] is the job row of point i (results.Table.ragged_all)."""
    return table.ragged_all("disclosure/curve", CURVE_FIELDS, rows)
