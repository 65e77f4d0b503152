"""Shared test set-up: hypothesis profiles.

``dev`` (the default) explores with fresh random examples and keeps failures in the local example
database; ``ci`` (chosen when the ``CI`` environment variable is set) is deterministic, so a CI run
is reproducible and cannot pass or fail by luck. ``HYPOTHESIS_PROFILE`` picks a profile by name.
The ``slow`` marker is declared in pyproject.toml and deselected by default (``-m slow`` runs them).
"""

import os

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
