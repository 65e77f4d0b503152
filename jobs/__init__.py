"""jobs: the parallel batch runner behind ``sudoku-jobs``.

Vocabulary:

- **run**: one invocation's work, kept in a **run directory** (records, manifest, log).
- **case**: one puzzle: created (or read from ``--input``), checked and solved back; one record row.
- **chunk**: a fixed slice of cases, the unit of work sent to a worker and of saving: its records are
  written as one Parquet **part** when it finishes, so a crash loses at most the chunks in flight.
- **spec**: a plain dict describing a chunk; a **task** is a function from a spec to records. The
  runner knows nothing else of what a task does, which is how ``fuzz`` reuses it.
- **backend**: where tasks run: a local process pool, or a Dask distributed cluster.
- **manifest**: the run's ``manifest.json``: its config (of a **kind**, ``batch`` or ``fuzz``), plan,
  provenance and status, checked against its schema (``jobs.manifest``) before it is trusted.
- **plan**: what a complete run holds (cases, chunks, seed, engines, input digest, versions); a
  resume that would not finish the same plan is refused.
"""

__version__ = "0.1.0"
# Cases per chunk by default, on the batch path (``jobs.columnar``: ~0.25 s of work at 9x9, see
# bench/README.md) and on the per-case path (``jobs.tasks``); here, so ``--help`` needs no numpy.
BATCH_CHUNK_SIZE = 1000
CASE_CHUNK_SIZE = 50
