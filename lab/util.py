"""Small helpers every lab module shares: the lab's error, its log line, bounded subprocesses."""

from __future__ import annotations

import subprocess
import sys
import time

_START = time.monotonic()


class LabError(Exception):
    """A lab step failed; the message says which and what to do."""


def log(message: str) -> None:
    """One progress line on stderr, stamped with seconds since the lab started."""
    print(f"[lab {time.monotonic() - _START:7.1f}s] {message}", file=sys.stderr, flush=True)


def run_cmd(argv: list[str], *, timeout: float, input_text: str | None = None) -> str:
    """Run a host command with a hard timeout; raise LabError with its stderr when it fails."""
    try:
        done = subprocess.run(
            argv, input=input_text, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired as e:
        raise LabError(f"{argv[0]} did not finish within {timeout:.0f} s") from e
    except FileNotFoundError as e:
        raise LabError(f"{argv[0]} is not installed") from e
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip()[-2000:]
        raise LabError(f"{' '.join(argv[:3])} ... failed (exit {done.returncode}): {tail}")
    return done.stdout
