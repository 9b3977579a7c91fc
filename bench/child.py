"""One command run as a child of its own, and what it cost: wall seconds, CPU seconds
(user + system: on a shared machine, what it would take alone) and its own peak RSS
(`ru_maxrss` from wait4 on that one pid, not the largest of every child waited for).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from typing import NamedTuple


class Measured(NamedTuple):
    wall_s: float
    cpu_s: float
    peak_rss_mib: float
    out: str  # its stdout when it exited 0, else its stderr
    code: int  # its exit status


def measure(cmd: list[str], cwd: str | None = None) -> Measured:
    """Run `cmd` in `cwd` to its end, its output in files (a pipe left unread would block it)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        said = out if proc.returncode == 0 else err
        said.seek(0)
        text = said.read().decode()
    return Measured(
        wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, text, proc.returncode
    )
