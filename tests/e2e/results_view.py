#!/usr/bin/python3
"""results_view: what the end-to-end tests need to know about results files and journals
(docs/results-layout.md, src/io/journal.h), read with h5py only, never with rcsim.

  results_view.py jobs FILE            "<rows> <unique ids>"; fails unless the file opens,
                                       has layout 2 and every row is complete
  results_view.py ids FILE             the job ids, one per line, sorted
  results_view.py journal FILE         valid JOB records of a journal (0 if it is missing)
  results_view.py journal-ids FILE     their job ids, one per line, in file order
  results_view.py journal-keep FILE N  cuts a journal after its first N JOB records
  results_view.py journal-flip FILE N  flips one byte in the middle of the Nth JOB record's
                                       body; prints "<record offset> <record length>"
  results_view.py failed FILE          entries under /failed
  results_view.py compare A B [--ignore COL,...] [--same-rows]
                                       every job of A and B has identical parameters,
                                       summaries, counters, canonical text, histograms,
                                       undelivered pairs and per-delivery records (measured
                                       fields -- wall time, memory, host, rank, finish time,
                                       build -- are ignored); the same root sweep attributes
"""

import struct
import sys
import zlib

import h5py
import numpy as np

LAYOUT = "rcsim-results/2"
MEASURED = {"counter_wall_s", "counter_peak_rss_kb", "host", "rank", "finished", "build"}
RAGGED = {"hist/online": ("bucket", "count"), "hist/all": ("bucket", "count"),
          "undelivered": ("group", "nonce", "recipient"),
          "deliveries": ("message", "group", "sender", "recipient", "sent_s", "delivered_s",
                         "online")}


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def load(path):
    """{job id: {column: value}} plus ragged slices, and the root attributes."""
    with h5py.File(path, "r") as f:
        assert text(f.attrs["layout"]) == LAYOUT, "%s: layout %s" % (path, f.attrs["layout"])
        t = f["table"]
        rows = int(t.attrs["rows"])
        cols = {}
        for name, ds in t.items():
            v = ds[:rows]
            if "levels" in ds.attrs:
                lv = [text(x) for x in ds.attrs["levels"]]
                v = [lv[c] for c in v]
            elif v.dtype.kind == "S":
                v = [text(x).rstrip("\0") for x in v]
            else:
                v = v.tolist()
            assert len(v) == rows, "%s: column %s has %d of %d rows" % (path, name, len(v), rows)
            cols[name] = v
        ragged = {}
        for g, names in RAGGED.items():
            end = f[g]["end"][:rows]
            assert len(end) == rows, "%s: %s/end has %d of %d rows" % (path, g, len(end), rows)
            data = {n: f[g][n][: int(end[-1]) if rows else 0] for n in names}
            ragged[g] = (end, data)
        root = {k: text(v) if isinstance(v, (bytes, str)) else v for k, v in f.attrs.items()}
    jobs = {}
    for r in range(rows):
        jid = "%016x" % cols["job_id"][r]
        row = {c: cols[c][r] for c in cols}
        for g, (end, data) in ragged.items():
            lo = int(end[r - 1]) if r else 0
            row[g] = {n: data[n][lo:int(end[r])] for n in data}
        jobs[jid] = row
    return jobs, rows, root


def journal_records(b):
    """(end offset, type, body) of every valid record of journal bytes b."""
    pos, out = 16, []
    while pos + 16 <= len(b):
        magic, typ, ln, crc = struct.unpack_from("<IIII", b, pos)
        if magic != 0x324A4352 or pos + 16 + ln > len(b):
            break
        body = b[pos + 16: pos + 16 + ln]
        if zlib.crc32(struct.pack("<I", typ) + body) != crc:
            break
        pos += 16 + ln
        out.append((pos, typ, body))
    return out


def journal(path):
    """Job ids of the valid JOB records (header 16 bytes; records: u32 magic 'RCJ2',
    u32 type, u32 length, u32 crc32(type, body); JOB body starts with the u64 id)."""
    try:
        b = open(path, "rb").read()
    except FileNotFoundError:
        return []
    if len(b) < 16:
        return []
    assert b[:8] == b"RCJRNL02", "%s: not a layout-2 journal" % path
    pos, ids = 16, []
    while pos + 16 <= len(b):
        magic, typ, ln, crc = struct.unpack_from("<IIII", b, pos)
        if magic != 0x324A4352 or pos + 16 + ln > len(b):
            break
        body = b[pos + 16: pos + 16 + ln]
        if zlib.crc32(struct.pack("<I", typ) + body) != crc:
            break
        if typ == 2:
            ids.append("%016x" % struct.unpack_from("<Q", body, 0)[0])
        pos += 16 + ln
    return ids


def compare(a, b, ignore, same_rows):
    ja, na, ra = load(a)
    jb, nb, rb = load(b)
    assert ja.keys() == jb.keys(), "job ids differ: only in %s: %s, only in %s: %s" % (
        a, sorted(set(ja) - set(jb))[:5], b, sorted(set(jb) - set(ja))[:5])
    for k in ("sweep_name", "sweep_hash", "sweep_text", "sweep_jobs", "layout"):
        assert ra.get(k) == rb.get(k), "root attribute %s: %r vs %r" % (k, ra.get(k), rb.get(k))
    skip = MEASURED | set(ignore)
    for jid, x in ja.items():
        y = jb[jid]
        for c, v in x.items():
            if c in skip:
                continue
            w = y.get(c)
            if isinstance(v, dict):
                for n in v:
                    assert np.array_equal(v[n], w[n], equal_nan=True), "job %s: %s/%s differs" % (
                        jid, c, n)
            elif isinstance(v, float) and isinstance(w, float) and v != v and w != w:
                continue
            else:
                assert v == w, "job %s: %s = %r in %s, %r in %s" % (jid, c, v, a, w, b)
    if same_rows:
        order_a = sorted(ja, key=lambda j: ja[j]["job_id"])
        assert order_a == sorted(jb, key=lambda j: jb[j]["job_id"])
    assert any(x["counter_deliveries"] > 0 for x in ja.values()) or not ja, "no deliveries at all"
    print("identical per-job results in %s and %s: %d jobs" % (a, b, len(ja)))


def main(argv):
    cmd = argv[1]
    if cmd == "jobs":
        jobs, rows, _ = load(argv[2])
        for jid, x in jobs.items():
            assert x["online_count"] == x["hist/online"]["count"].sum(), (
                "%s: job %s: %d online samples, histogram holds %d" % (
                    argv[2], jid, x["online_count"], x["hist/online"]["count"].sum()))
        print(rows, len(jobs))
    elif cmd == "ids":
        print("\n".join(sorted(load(argv[2])[0])))
    elif cmd == "journal":
        print(len(journal(argv[2])))
    elif cmd == "journal-ids":
        print("\n".join(journal(argv[2])))
    elif cmd == "journal-keep":
        b = open(argv[2], "rb").read()
        keep, cut = int(argv[3]), None
        n = 0
        for end, typ, _ in journal_records(b):
            if typ == 2:
                n += 1
                if n == keep:
                    cut = end
                    break
        assert cut is not None, "%s: only %d job records" % (argv[2], n)
        open(argv[2], "r+b").truncate(cut)
    elif cmd == "journal-flip":
        b = open(argv[2], "rb").read()
        want, n, start = int(argv[3]), 0, 16
        for end, typ, body in journal_records(b):
            if typ == 2:
                n += 1
                if n == want:
                    at = end - len(body) // 2
                    with open(argv[2], "r+b") as f:
                        f.seek(at)
                        f.write(bytes([b[at] ^ 0x40]))
                    print(start, end - start)
                    break
            start = end
        assert n == want, "%s: only %d job records" % (argv[2], n)
    elif cmd == "failed":
        with h5py.File(argv[2], "r") as f:
            print(len(f["failed"]) if "failed" in f else 0)
    elif cmd == "compare":
        ignore = []
        same_rows = False
        rest = argv[4:]
        while rest:
            if rest[0] == "--ignore":
                ignore += rest[1].split(",")
                rest = rest[2:]
            elif rest[0] == "--same-rows":
                same_rows = True
                rest = rest[1:]
            else:
                sys.exit("results_view.py: unknown option %s" % rest[0])
        compare(argv[2], argv[3], ignore, same_rows)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
