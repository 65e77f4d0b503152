"""A run's summary for people: totals, failures, timing percentiles per phase.

``summarize`` takes the records as an Arrow table or as a ``pyarrow.dataset`` (``RunDir.dataset()``):
from a dataset it reads only the time columns and ``outcome`` (8 bytes a case per time column; a
million cases are ~40 MB, not the whole ~400 MB table), and of the rows that are not ok only the first
``failures_shown``, through a dataset filter."""

import pyarrow as pa
import pyarrow.compute as pc

from jobs.schema import TIME_COLUMNS

PERCENTILES = (0.5, 0.9, 0.99)
FAILURE_COLUMNS = ["case", "outcome", "reason", "puzzle"]


def _columns(records, columns):
    if isinstance(records, pa.Table):
        return records.select(columns)
    return records.to_table(columns=columns)


def _first_not_ok(records, count):
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


def summarize(manifest, records, *, failures_shown=10):
    config = manifest.get("config", {})
    totals = manifest.get("totals", {})
    lines = [
        f"run {manifest.get('run_id')}: {manifest.get('status')}, {totals.get('cases', 0)} cases "
        f"(ok {totals.get('ok', 0)}, failed {totals.get('failed', 0)}, rejected {totals.get('rejected', 0)}), "
        f"wall {manifest.get('wall_s', 0):.1f}s",
        f"seed {manifest.get('seed')}, size {config.get('size')}, engine {config.get('engine')}, check engine "
        f"{config.get('check_engine')}, backend {config.get('backend')} x{config.get('workers')}, "
        f"host {manifest.get('host', {}).get('cpu')}",
        "",
        f"{'phase':<10}{'n':>8}{'p50 ms':>10}{'p90 ms':>10}{'p99 ms':>10}{'max ms':>10}",
    ]
    narrow = _columns(records, [*TIME_COLUMNS, "outcome"])
    for column in TIME_COLUMNS:
        values = narrow.column(column).drop_null()
        if len(values) == 0:
            continue
        q = pc.quantile(values, q=list(PERCENTILES)).to_pylist()
        top = pc.max(values).as_py()
        lines.append(f"{column:<10}{len(values):>8}" + "".join(f"{v * 1000:>10.2f}" for v in (*q, top)))
    outcomes = narrow.column("outcome")
    bad_count = len(outcomes) - (pc.sum(pc.equal(outcomes, "ok")).as_py() or 0)
    del narrow, outcomes
    if bad_count:
        shown = _first_not_ok(records, failures_shown)
        lines += ["", f"not ok ({bad_count}; first {len(shown)}):"]
        for row in shown.to_pylist():
            lines.append(f"  case {row['case']} ({row['outcome']}): {row['reason']}  puzzle {row['puzzle']}")
    return "\n".join(lines)
