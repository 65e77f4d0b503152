"""Reports: read record datasets (Parquet run directories), summarize them, compare two of them.

Vocabulary:

- **run**: a run directory (``RUN/manifest.json`` and ``RUN/parts/chunk-NNNNNN.parquet``), written by
  ``sudoku-jobs`` (a batch run) or ``fuzz`` (a fuzz run). A directory holding several run
  directories and no manifest of its own is a **run set**, read as one run (e.g. interleaved rounds).
- **record**: one row of a run, in the shared schema of ``jobs.schema`` (any version in its HISTORY).
- **case set**: what a row was drawn from: the ``family`` of a fuzz case, else the ``source`` of a
  batch row ('create' or the input file's name).
- **metric**: one timed phase (a column ending in ``_s``) for one grid size and one case set; its
  **samples** are the non-null values of that column in those rows.
- **counter**: a machine-independent count of work (``guesses``, ``nodes``, ``unique_guesses``);
  counters compare exactly, case by case; a change is reported, never a timing regression.
- **failure**: a row whose outcome is 'failed'; any failure in the current run is a regression.
- **round**: one member run of a run set (CI runs each side in several interleaved rounds); with
  ``chunk`` it makes the **blocks** that the bootstrap resamples, since machine load shifts whole
  rounds and chunks, not single cases.
- **verdict** of a metric: 'regression', 'improvement', 'unchanged' or 'not comparable', from the
  ratio of medians (current over baseline) and its block-bootstrap confidence interval; never
  within the **spread** between rounds of one side.
- **configuration** of a run: what shapes its timing (engines, size, difficulty, data set, schema
  version, mode, fuzz target); runs whose configurations differ are **not comparable** (exit 5).
- **history**: each metric over **commits** (the runs of one git sha, merged as rounds), with the
  **step** changes named (``history``, ``render.history``).
- **A/A check**: the current run's first half of rounds against its second half; a change there
  marks the comparison's timing verdicts **unreliable** (shown, never failing).

Layers: ``load`` (run directories to frames) -> ``stats`` (percentiles, bootstrap) -> ``summary``,
``verdict`` and ``history`` (the models of ``show``, ``compare`` and ``history``) -> ``render`` (one
module per medium: ``md``, ``html`` with ``svg``, ``json``, ``junit``, ``terminal``, and ``history``
for both media of a history) -> ``cli``. ``feedback`` (a page per target of a fuzz run, drawn by the
``render`` bug blocks) and ``grades`` (results.json and JUnit XML by a grading rule) sit beside ``show``. Of the runner only ``jobs.schema`` is read (the record
schema, its units and their formatting); text is escaped by ``sudoku.display``. A test reads the
imports and holds the package to this.
"""


class ReportError(ValueError):
    """A run that cannot be read as asked (missing, corrupt, of an unknown schema version), or an
    output that cannot be written; the command line turns it into one line on stderr and exit 2."""


class WriteFailed(ReportError):
    """An output that cannot be written (a path under a file, read-only, disk full): exit 3, the I/O
    error of every tool."""
