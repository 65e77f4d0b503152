"""A run's summary for people: totals, failures, timing percentiles per phase."""

import pyarrow.compute as pc

from jobs.schema import TIME_COLUMNS

PERCENTILES = (0.5, 0.9, 0.99)


def summarize(manifest, records_table, *, failures_shown=10):
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
    for column in TIME_COLUMNS:
        values = records_table.column(column).drop_null()
        if len(values) == 0:
            continue
        q = pc.quantile(values, q=list(PERCENTILES)).to_pylist()
        top = pc.max(values).as_py()
        lines.append(f"{column:<10}{len(values):>8}" + "".join(f"{v * 1000:>10.2f}" for v in (*q, top)))
    bad = records_table.filter(pc.not_equal(records_table.column("outcome"), "ok"))
    if len(bad):
        lines += ["", f"not ok ({len(bad)}; first {min(len(bad), failures_shown)}):"]
        for row in bad.slice(0, failures_shown).to_pylist():
            lines.append(f"  case {row['case']} ({row['outcome']}): {row['reason']}  puzzle {row['puzzle']}")
    return "\n".join(lines)
