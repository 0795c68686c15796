"""The learned arbiter: a small model fitted on labelled decisions (offline, no network).

- `pair`: the features of one (memory, candidate) pair, each one a person can check;
- `model`: the fitted weights and decision thresholds (`model.json`, built by
  `make arbiter-model` from `bench/arbiter_fit.py`, its report in bench/reports/);
- `fit`: the regularised softmax regression that fits them;
- `arbiter`: reading the closest neighbours and deciding, overwrites only when confident.
"""

from app.confront.arbiter.learned.arbiter import LearnedArbiter

__all__ = ["LearnedArbiter"]
