"""configtable: a table of configurations (CSV) read as results, for `rcsim plot`.

A study's committed numbers when its results files are not kept (figures/study/trilemma.csv,
docs/trilemma.md): one row per configuration of one seed, its parameters
(CONFIG_CSV_PARAMS), the number of seeds (1), then its figures under the names of
CONFIG_CSV_FIGURES (the results table's column in the second place; counters as
counter_NAME).  load() gives a results.Results whose jobs are the rows (RowJob), which
sweep.Sweep, metrics and the plots read as any job: its parameters through its canonical
text, its online summary and counters.  A row of several seeds (a mean) is refused: it is
not one job, and its seeds' spread is gone.  Tables are read alone or with other tables,
not beside results files: a row names only five parameters, a job all of its own.

Results files (HDF5) are read by rcplot.results only; this reads the CSV a study wrote.
"""

import csv
import math
import os

from . import results

CONFIG_CSV_PARAMS = ("strategy", "trace", "lambda_div", "rate_delay", "corrupt_mixes")
CONFIG_CSV_FIGURES = (
    ("latency_mean_s", "online_mean"), ("latency_median_s", "online_p50"),
    ("latency_p90_s", "online_p90"), ("deliveries", "online_count"),
    ("anon_targets", "counter_anon_targets"),
    ("entropy_mean_bits", "counter_anon_entropy_mean_bits"),
    ("entropy_median_bits", "counter_anon_entropy_median_bits"),
    ("entropy_p5_bits", "counter_anon_entropy_p5_bits"),
    ("min_entropy_mean_bits", "counter_anon_min_entropy_mean_bits"),
    ("sender_entropy_mean_bits", "counter_anon_sender_entropy_mean_bits"),
    ("bw_payload_pps", "counter_bw_payload_pps"), ("bw_cover_pps", "counter_bw_cover_pps"),
    ("bw_cover_used", "counter_bw_cover_used"),
    ("bw_bytes_per_client_s", "counter_bw_bytes_per_client_s"),
    ("bw_mix_load_mean_pps", "counter_bw_mix_load_mean_pps"),
    ("bw_mix_load_max_pps", "counter_bw_mix_load_max_pps"),
    ("unobs_active_rate_pps", "counter_unobs_active_rate_pps"),
    ("unobs_idle_rate_pps", "counter_unobs_idle_rate_pps"),
    ("unobs_ks", "counter_unobs_ks"), ("unobs_ks_crit05", "counter_unobs_ks_crit05"),
    ("unobs_real_per_pull_mean", "counter_unobs_real_per_pull_mean"),
    ("unobs_real_per_pull_max", "counter_unobs_real_per_pull_max"),
    ("wall_s", "counter_wall_s"))


class RowJob(results.Job):
    """One row of a table of configurations (CONFIG_CSV_FIGURES): a job of seed 1 whose
    parameters are the row's, its online summary and counters the row's figures (as the
    CSV rounded them; an empty cell is absent).  No histogram, no deliveries."""

    def __init__(self, path, line, row):
        self.path = path
        # Numbers spelled as a job's canonical text spells them (%.17g): "1.0" is "1".
        params = {k: row[k] if k in ("strategy", "trace") else "%.17g" % float(row[k])
                  for k in CONFIG_CSV_PARAMS}
        params["seed"] = "1"
        self.attrs = {"canonical": "\n".join("%s=%s" % kv for kv in params.items())}
        self.summary = {}
        for name, col in CONFIG_CSV_FIGURES:
            v = row.get(name, "")
            if v == "":
                continue
            if col.startswith("online_"):
                self.summary[col[len("online_"):]] = float(v)
            else:
                self.attrs[col] = float(v)
        self.id = "%s:%d" % (os.path.basename(path), line)
        self._init_common({"strategy": params["strategy"], "trace": params["trace"],
                           "lambda_div": params["lambda_div"], "seed": 1})
        self.wall_s = self.attrs.get("counter_wall_s", math.nan)
        self.config = "\n".join("%s=%s" % (k, params[k]) for k in CONFIG_CSV_PARAMS)

    def hist(self, which="hist_online"):
        raise ValueError("%s: a table of configurations holds no histograms" % self.path)


def _config_csv_jobs(path):
    with open(path, newline="") as f:
        r = csv.DictReader(f)
        missing = [c for c in CONFIG_CSV_PARAMS + ("seeds",) if c not in (r.fieldnames or [])]
        if missing:
            raise ValueError("%s: not a table of configurations (no column %s)"
                             % (path, ", ".join(missing)))
        jobs, keys = [], set()
        for line, row in enumerate(r, 2):
            if row["seeds"] != "1":
                raise ValueError("%s:%d: a row of %s seeds (their mean) is not one job; a "
                                 "table of configurations holds one seed a row"
                                 % (path, line, row["seeds"]))
            job = RowJob(path, line, row)
            if job.config in keys:
                raise ValueError("%s:%d: configuration given twice" % (path, line))
            keys.add(job.config)
            jobs.append(job)
    return jobs


class Tables(results.Results):
    """The jobs of one or more tables of configurations (load())."""

    def sweep_info(self):
        """As results.sweep_info: a table is named by its file."""
        return [{"path": p, "sweep_name": os.path.splitext(os.path.basename(p))[0]}
                for p in self.sources]


def is_table(path):
    return path.endswith(".csv")


def load(paths):
    """Tables (a results.Results) of the CSV files `paths`; ValueError when one is not a
    table of configurations or a configuration is in two of them."""
    res = Tables()
    for path in paths:
        jobs = _config_csv_jobs(path)
        have = {j.config for j in res.jobs}
        twice = [j for j in jobs if j.config in have]
        if twice:
            raise ValueError("%s: configuration %s is in an earlier table too"
                             % (twice[0].id, twice[0].config.replace("\n", " ")))
        res.sources.append(path)
        res.jobs.extend(jobs)
    return res
