"""A run's summary for people: totals, failures, timing percentiles per phase.

``summarize`` takes the records as an Arrow table or as a ``pyarrow.dataset`` (``RunDir.dataset()``):
from a dataset it reads only the time columns and ``outcome`` (8 bytes a case per time column; a
million cases are ~40 MB, not the whole ~400 MB table), and of the rows that are not ok only the first
``failures_shown``, through a dataset filter."""

from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from jobs.manifest import run_wall_s
from jobs.schema import TIME_COLUMNS, fmt_time

if TYPE_CHECKING:
    from sudoku.display import Table

PERCENTILES = (0.5, 0.9, 0.99)
JSON_VERSION = 2  # the shape of `sudoku-jobs show --json`; bump it on any change (2: "distinct")
FAILURE_COLUMNS = ["case", "outcome", "reason", "puzzle"]


def _columns(records: Any, columns: list[str]) -> Any:
    if isinstance(records, pa.Table):
        return records.select(columns)
    return records.to_table(columns=columns)


def _first_not_ok(records: Any, count: int) -> Any:
    """The first ``count`` rows (in case order) whose outcome is not 'ok'."""
    not_ok = pc.field("outcome") != "ok"
    if isinstance(records, pa.Table):
        return records.filter(not_ok).sort_by("case").slice(0, count).select(FAILURE_COLUMNS)
    # Two narrow scans, whatever the order of rows within a part: the case numbers of every row not
    # ok (8 bytes each), then the whole rows of the first ``count`` of them.
    cases = records.to_table(columns=["case"], filter=not_ok)
    first = cases.take(pc.select_k_unstable(cases, k=min(count, len(cases)), sort_keys=[("case", "ascending")]))
    wanted = pc.field("case").isin(first.column("case").combine_chunks())
    return records.to_table(columns=FAILURE_COLUMNS, filter=not_ok & wanted).sort_by("case")


def _ordered(least: float, values: list[float], most: float) -> list[float]:
    """Percentiles kept between the least and the largest value and never past the next one up:
    Arrow's interpolation between two neighbours can land one ulp outside them (p90 above p99, p99
    above the largest, p50 below the least of equal times), and many times are equal (a chunk's
    blank time is shared evenly by its cases)."""
    out = [min(max(value, least), most) for value in values]
    for i in range(len(out) - 2, -1, -1):
        out[i] = min(out[i], out[i + 1])
    return out


def summary_data(manifest: dict[str, Any], records: Any, *, failures_shown: int = 10) -> dict[str, Any]:
    """The figures of a run's summary as plain values: the JSON of ``sudoku-jobs show --json`` (schema
    ``sudoku-jobs.show``, ``version`` 2) and the source of the text renderings. ``distinct`` counts
    the distinct puzzles up to symmetry of a run that recorded canonical forms (null otherwise)."""
    config = manifest.get("config", {})
    timings = []
    narrow = _columns(records, [*TIME_COLUMNS, "outcome"])
    for column in TIME_COLUMNS:
        values = narrow.column(column).drop_null()
        if len(values) == 0:
            continue
        least, most = pc.min_max(values).values()
        q = _ordered(least.as_py(), pc.quantile(values, q=list(PERCENTILES)).to_pylist(), most.as_py())
        timings.append({"phase": column, "n": len(values), **dict(zip(("p50_s", "p90_s", "p99_s"), q)),
                        "max_s": most.as_py()})
    totals = _saved_totals(narrow.column("outcome"))
    bad_count = totals["cases"] - totals["ok"]
    del narrow
    shown = _first_not_ok(records, failures_shown).to_pylist() if bad_count else []
    distinct = _distinct(records) if config.get("canonical") else None
    return {"schema": "sudoku-jobs.show", "version": JSON_VERSION, "run_id": manifest.get("run_id"),
            "status": manifest.get("status"), "wall_s": run_wall_s(manifest),
            "totals": totals,
            "seed": manifest.get("seed"), "git_sha": manifest.get("git_sha"),
            "config": {key: config.get(key) for key in ("size", "engine", "check_engine", "backend", "workers",
                                                        "input", "difficulty", "blanks")},
            "host": manifest.get("host", {}), "timings": timings,
            "not_ok": {"count": bad_count, "first": shown}, "distinct": distinct}


def _distinct(records: Any) -> dict[str, int]:
    """Puzzles with a canonical form, and how many distinct forms among them (``--canonical``): the
    rest are variants of one another, duplicates up to symmetry."""
    forms = _columns(records, ["canonical"]).column("canonical").drop_null()
    count = pc.count_distinct(forms).as_py() if len(forms) else 0
    return {"puzzles": len(forms), "forms": count, "duplicates": len(forms) - count}


def _saved_totals(outcomes: Any) -> dict[str, int]:
    """Cases by outcome among the saved records. Counted from the parts, not read from the manifest:
    a run still going, or stopped before it could say, has no totals in its manifest, yet its parts
    hold every case finished so far (and for a finished run the two agree)."""
    counts = {row["values"]: row["counts"] for row in pc.value_counts(outcomes).to_pylist()}
    return {"cases": len(outcomes), **{key: counts.get(key, 0) for key in ("ok", "failed", "rejected")}}


def summary_blocks(data: dict[str, Any], *, resume: str | None = None) -> list["str | Table"]:
    """The summary as ``sudoku.display`` blocks: two lines, the percentiles table, the first cases not ok;
    ``resume``, the command that finishes a run not complete, under the two lines."""
    from sudoku.display import Table, marked

    t, config = data["totals"], data["config"]
    saved = "" if data["status"] == "complete" else " saved"  # a run not complete: what its parts hold
    # a run going on, or killed, has not recorded its wall time yet (the manifest keeps earlier legs only)
    wall = "" if data["status"] in ("running", "stopped") else f", wall {data['wall_s']:.1f}s"
    blocks: list[str | Table] = [marked(f"run {data['run_id']}: {data['status']}, {t['cases']} cases{saved} (ok {t['ok']}, "
                     f"failed {t['failed']}, rejected {t['rejected']}){wall}",
                     "bad" if t["failed"] else None),
              f"seed {data['seed']}, size {config['size']}, engine {config['engine']}, check engine "
              f"{config['check_engine']}, backend {config['backend']} x{config['workers']}, "
              f"host {data['host'].get('cpu')}"]
    if data["status"] == "stopped":
        blocks.append("stopped: its manifest says running, but no process holds the run (killed, or the machine "
                      "went down)")
    if resume:
        blocks.append(f"resume with: {resume}")
    if data.get("distinct"):
        d = data["distinct"]
        blocks.append(f"distinct up to symmetry: {d['forms']} of {d['puzzles']} puzzles ({d['duplicates']} "
                      "duplicates: rows whose canonical column another row has)")
    table = Table(["phase", "n:", "p50:", "p90:", "p99:", "max:"])  # each time with its unit, as `reports show`
    for row in data["timings"]:
        table.add(row["phase"], row["n"], *(fmt_time(row[key]) for key in ("p50_s", "p90_s", "p99_s", "max_s")))
    blocks.append(table)
    bad = data["not_ok"]
    if bad["count"]:
        blocks.append(marked(f"not ok ({bad['count']}; first {len(bad['first'])}):", "bad"))
        blocks += [marked(f"  case {row['case']} ({row['outcome']}): {row['reason']}  puzzle {row['puzzle']}",
                          "bad" if row["outcome"] == "failed" else "warn") for row in bad["first"]]
    return blocks


def summarize(manifest: dict[str, Any], records: Any, *, failures_shown: int = 10) -> str:
    """The summary as plain text (what ``sudoku-jobs show`` prints in a pipe)."""
    from sudoku.display import plain

    return plain(summary_blocks(summary_data(manifest, records, failures_shown=failures_shown))).rstrip("\n")
