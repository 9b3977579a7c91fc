"""How hard the hypothesis fuzz tests try, and how many inputs they tried (printed at the end).

KMSGD_FUZZ_EXAMPLES=N raises every fuzz test's example count for a long, randomised run on
demand; the default keeps the normal suite fast and the same from run to run.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter

from hypothesis import HealthCheck, settings

EXAMPLES = int(os.environ.get("KMSGD_FUZZ_EXAMPLES", "0"))


def budget(default: int) -> settings:
    return settings(
        max_examples=EXAMPLES or default,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        database=None,  # the suite must not depend on examples saved by earlier runs
        derandomize=not EXAMPLES,  # the normal suite tries the same inputs every run
    )


PROGRESS_EVERY = 1000


class Tried(Counter[str]):
    """Inputs tried per fuzz test. In a long run (KMSGD_FUZZ_EXAMPLES) it also prints a line
    to stderr every PROGRESS_EVERY inputs of a test, so a run stopped early still says how far
    it got."""

    def __setitem__(self, key: str, value: int) -> None:
        super().__setitem__(key, value)
        if EXAMPLES and value % PROGRESS_EVERY == 0:
            print(f"fuzz {time.strftime('%H:%M:%S')} {key}: {value}", file=sys.stderr, flush=True)


def report(module: str, tried: Counter[str]) -> str:
    """One line for `pytest -s`: the inputs each fuzz test of `module` tried."""
    counts = ", ".join(f"{name} {n}" for name, n in sorted(tried.items()))
    return f"\n{module}: inputs tried: {counts}; total {sum(tried.values())}"
