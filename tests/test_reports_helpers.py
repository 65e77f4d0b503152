"""Synthetic run directories for the ``reports`` tests, written the way the runner writes them
(``jobs.schema.table`` into ``parts/chunk-NNNNNN.parquet``, plus ``manifest.json``), and helpers
that run ``reports`` in this process (``run_reports``) or as a real subprocess (``run_reports_process``).
No tests here."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from jobs.schema import SCHEMA, table

REPO = Path(__file__).resolve().parent.parent
PHASES = {"create_s": 0.02, "unique_s": 0.005, "blanks_s": 4e-6, "solve_s": 0.0008}
FUZZ_COLUMNS = ["family", "target", "oracles_failed", "format_slips", "exit_code", "target_s", "input_text"]
HOST = {"hostname": "vm", "cpu": "Intel(R) Xeon(R) Processor", "cores": 2, "platform": "Linux"}


def puzzle_text(case, seed=1):
    """A fake 81-character puzzle, the same for the same case and seed."""
    rng = np.random.default_rng([seed, case])
    return "".join(str(v) if v else "." for v in rng.integers(0, 10, 81))


def records(n=200, *, seed=1, noise_seed=0, scale=None, sigma=0.3, size=9, source="create", family="create",
            failed=(), guesses_shift=0, phases=PHASES):
    """``n`` batch rows whose phase times are log-normal around ``phases`` (x ``scale[phase]``), drawn
    from ``noise_seed``; the cases in ``failed`` have outcome 'failed' (a wrong solution)."""
    rng = np.random.default_rng(noise_seed)
    scale = scale or {}
    rows = []
    for case in range(n):
        puzzle = puzzle_text(case, seed)
        row = {"schema_version": 2, "run_id": "synthetic", "chunk": case // 50, "case": case, "seed": seed,
               "case_seed": seed * 100000 + case, "source": source, "size": size, "puzzle": puzzle,
               "solution": "1" * 81, "clues": 25, "blanks": 56, "solutions": 1, "unique": True, "blanks_ok": True,
               "solved_ok": True, "givens_kept": True, "matches_unique": True, "outcome": "ok", "family": family,
               "guesses": case % 7 + (guesses_shift if case == 3 else 0), "nodes": case % 7 + 1,
               "unique_guesses": case % 5, "engine": "py", "check_engine": "dlx", "worker": "vm:1"}
        for phase, typical in phases.items():
            row[phase] = float(typical * scale.get(phase, 1.0) * rng.lognormal(0.0, sigma))
        if case in failed:
            row.update(outcome="failed", solved_ok=False, matches_unique=False,
                       reason="the answer differs from the unique solution")
        rows.append(row)
    return rows


def fuzz_records(*, n_per_family=20, failed=None):
    """Fuzz-run rows: two families, target 'cli', target_s timed; ``failed`` maps case -> oracle names."""
    failed = failed or {}
    rng = np.random.default_rng(5)
    rows = []
    for case in range(2 * n_per_family):
        family = "unique_hard" if case < n_per_family else "clashing"
        row = {"schema_version": 2, "run_id": "fuzz", "chunk": case // 10, "case": case, "seed": 3,
               "case_seed": case, "source": "fuzz", "size": 9, "puzzle": puzzle_text(case, 3), "outcome": "ok",
               "family": family, "target": "cli", "exit_code": 0, "target_s": float(0.01 * rng.lognormal(0, 0.2)),
               "input_text": puzzle_text(case, 3) + "\n", "worker": "vm:2"}
        if case in failed:
            row.update(outcome="failed", oracles_failed=failed[case], exit_code=1, reason=f"oracles {failed[case]}",
                       format_slips="trailing_space", signature=f"{failed[case]} on {family} (exit 1)")
        rows.append(row)
    return rows


def manifest(rows, *, version=2, chunks=None, host=None, status="complete", run_id="synthetic", **extra):
    counts = {k: sum(r.get("outcome") == k for r in rows) for k in ("ok", "failed", "rejected")}
    data = {"schema_version": version, "run_id": run_id, "config": {"size": 9}, "seed": 1, "git_sha": "0" * 40,
            "host": host or HOST, "status": status, "wall_s": 1.0, "totals": {"cases": len(rows), **counts}}
    if chunks is not None:
        data["chunks"] = chunks
    data.update(extra)
    return data


def write_run(path, rows, *, version=2, chunk_size=50, host=None, manifest_extra=None):
    """A run directory at ``path`` holding ``rows`` in parts of ``chunk_size`` rows, in schema ``version``."""
    path = Path(path)
    (path / "parts").mkdir(parents=True, exist_ok=True)
    chunks = 0
    for chunk, start in enumerate(range(0, len(rows), chunk_size)):
        part = table(rows[start:start + chunk_size])
        if version == 1:  # version 1 had no fuzz columns
            part = part.drop_columns(FUZZ_COLUMNS)
        if version != 2:
            part = part.set_column(0, "schema_version", pa.array([version] * len(part), pa.int16()))
        pq.write_table(part, path / "parts" / f"chunk-{chunk:06d}.parquet")
        chunks += 1
    (path / "manifest.json").write_text(json.dumps(manifest(rows, version=version, chunks=chunks, host=host,
                                                            **(manifest_extra or {}))))
    return path


def write_rounds(path, rounds, *, version=2, chunk_size=50, host=None):
    """A run set at ``path``: one run directory per element of ``rounds`` (lists of rows), named
    round01, round02, ... as CI names its interleaved rounds."""
    path = Path(path)
    for number, rows in enumerate(rounds, 1):
        rows = [dict(row, run_id=f"round{number:02d}") for row in rows]
        write_run(path / f"round{number:02d}", rows, version=version, chunk_size=chunk_size, host=host,
                  manifest_extra={"run_id": f"round{number:02d}"})
    return path


def loaded_rounds(loads, *, noise_seed, scale=None, n=200):
    """Rows of one round per factor in ``loads``: every phase of a round times its load factor (machine
    load shifts a whole run), and ``scale`` on top (a change of the code)."""
    out = []
    for number, load in enumerate(loads):
        factors = {phase: load * (scale or {}).get(phase, 1.0) for phase in PHASES}
        out.append(records(n, noise_seed=noise_seed * 1000 + number, scale=factors))
    return out


def run_reports(*args, env=None, timeout=120):
    """``reports ARGS`` in this process (``reports.cli.main`` through ``helpers.call_main``), with
    GITHUB_STEP_SUMMARY unset unless ``env`` sets it; a CompletedProcess with text stdout and stderr."""
    from helpers import call_main
    from reports.cli import main

    return call_main(main, args, timeout=timeout, env={"GITHUB_STEP_SUMMARY": None, **(env or {})})


def run_reports_process(*args, env=None, timeout=120):
    """``python -m reports ARGS`` as a real subprocess, with the repo root on PYTHONPATH."""
    paths = [str(REPO)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    full_env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    full_env.pop("GITHUB_STEP_SUMMARY", None)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "reports", *map(str, args)], capture_output=True, text=True,
                          env=full_env, timeout=timeout, cwd=REPO)


assert SCHEMA.names[0] == "schema_version"
