"""Defaults of the verdict rule, kept apart so the command line can read them without numpy or pandas."""

THRESHOLD = 0.10     # a change counts past 10 %
MIN_SAMPLES = 10     # fewer samples on a side: 'not comparable'
SEED = 0             # bootstrap seed: the same runs give the same verdict
RESAMPLES = 2000     # bootstrap resamples per metric
CONFIDENCE = 0.95    # confidence of the ratio's interval
SINGLE_RUN_THRESHOLD = 0.50  # with one run on a side, load cannot be told from code: a change must pass 50 %
