"""The crash lab end to end: boots real kernels in QEMU, so it runs only when asked for.

`KMSGD_LAB=1 .venv/bin/python -m pytest tests/e2e/test_lab.py` (root, ~15 minutes on 2 cores);
`KMSGD_LAB_SCENARIOS="probe panic"` narrows it. `lab/run` is the same thing without pytest.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    os.environ.get("KMSGD_LAB") != "1",
    reason="boots QEMU guests for ~15 minutes: set KMSGD_LAB=1 (root) or run lab/run",
)


def test_every_scenario_passes() -> None:
    scenarios = os.environ.get("KMSGD_LAB_SCENARIOS", "").split()
    done = subprocess.run(
        [sys.executable, str(REPO / "lab" / "run"), *scenarios],
        capture_output=True,
        text=True,
        timeout=40 * 60,
        check=False,
    )
    tail = (done.stdout + done.stderr)[-6000:]
    assert done.returncode == 0, tail
    assert " 0 failed" in done.stdout.splitlines()[-1], tail
