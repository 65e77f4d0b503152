"""Shared test set-up: hypothesis profiles, and no log line carried from one test's run to the next.

``dev`` (the default) explores with fresh random examples and keeps failures in the local example
database; ``ci`` (chosen when the ``CI`` environment variable is set) is deterministic, so a CI run
is reproducible and cannot pass or fail by luck. ``HYPOTHESIS_PROFILE`` picks a profile by name.
The ``slow`` marker is declared in pyproject.toml and deselected by default (``-m slow`` runs them).
"""

import os
import sys

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "dev",
    max_examples=100,
    deadline=None,  # timings on a shared 2-core machine vary too much for a per-example deadline
)
settings.register_profile(
    "ci",
    max_examples=50,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(autouse=True)
def _each_test_s_log_lines_stay_its_own():
    """A process runs one command, so the runner's log relay holds what workers say before their run's
    log is set up (``jobs.runner.forward_worker_logs(hold=True)``) and gives it to that log. Tests run
    many runs in one process: what a test's workers said after its run, or before a run that never
    came, went into the next test's run.log (a run there showed each chunk logged six times)."""
    yield
    runner = sys.modules.get("jobs.runner")
    if runner is not None:
        relay = runner._relay()
        relay.write_to(None)  # the test's log files closed
        relay.backlog = []
