"""The journal beside a results file, as the analysis reads it: which jobs it holds.

A journal is a result (docs/running-sweeps.md): a sweep killed before its table write, or one
that ended while a reader held the file, has finished jobs in its journal that its table lacks.
The command-line readers (rcsim summarize, plot, report, diff through rcplot.sweep.load, and
summarize's column path) refuse such a file with the true reason instead of silently leaving
those jobs out.  It reads the table through rcplot.results (the one reader of results files)
but lives apart from it, since the figure sets' provenance hashes results.py
(analysis/rcplot/provenance.py): a reader's refusal does not mark every drawn figure stale,
and the figures are drawn from complete files only (scripts/reproduce.sh checks its results
files with check_files before drawing).
"""

import os
import struct

import numpy as np

from . import results


JOURNAL_MAGIC = b"RCJRNL02"
JOURNAL_RECORD = 0x324A4352  # "RCJ2", src/io/journal.h


def journal_ids(path):
    """Job ids of the JOB records in the journal of results file `path` (src/io/journal.h;
    the journal is "<file>.journal" beside the file a symbolic link finally names), as a
    uint64 array; empty without a journal.  Only the record headers are read (the sweep
    checks the CRCs when it resumes); reading stops at the first record that does not fit."""
    jpath = os.path.realpath(path) + ".journal"
    ids = []
    try:
        f = open(jpath, "rb", buffering=1 << 20)
    except FileNotFoundError:
        return np.zeros(0, dtype=np.uint64)
    with f:
        size = os.fstat(f.fileno()).st_size
        if f.read(16)[:8] != JOURNAL_MAGIC:
            return np.zeros(0, dtype=np.uint64)
        pos = 16
        while pos + 16 <= size:
            magic, typ, ln, _ = struct.unpack("<IIII", f.read(16))
            if magic != JOURNAL_RECORD or pos + 16 + ln > size:
                break
            if typ == 2 and ln >= 8:
                ids.append(struct.unpack("<Q", f.read(8))[0])
                f.seek(ln - 8, 1)
            else:
                f.seek(ln, 1)
            pos += 16 + ln
    return np.array(ids, dtype=np.uint64)


def check_journal(path, table_ids):
    """Raises ValueError when the journal of `path` holds finished jobs its table does not:
    the journal is the authority on what is finished (docs/running-sweeps.md), and a table
    read without them would silently lack results (a sweep killed before its table write,
    or one that ended while a reader held the file)."""
    lacking = np.setdiff1d(journal_ids(path), np.asarray(table_ids, dtype=np.uint64))
    if lacking.shape[0]:
        raise ValueError(
            "%s: its journal holds %d finished job(s) that its table does not (%d rows; e.g. job "
            "%016x): the sweep ended before writing them to the table (killed, or a reader held "
            "the file).  Run the same `rcsim sweep SWEEP.yaml --out %s` command again (it writes "
            "them from the journal and runs only what is missing), then read the file"
            % (path, lacking.shape[0], len(table_ids), int(lacking[0]), path))


def check_files(paths):
    """check_journal for each results file in `paths`, with the job ids of its table (a
    table of configurations, .csv, has no journal)."""
    for path in paths:
        if path.endswith(".csv"):
            continue
        ids = _table_ids(path)
        check_journal(path, ids)


def _table_ids(path):
    """The job ids in a results file's table, read by rcplot.results (the one reader of
    results files); none when the file has no table (layout 1, or written before its
    first table write)."""
    try:
        with results.load_table([path], ["job_id"]) as tab:
            return tab["job_id"]
    except (KeyError, ValueError):
        return []
