"""A FIFO where a file is expected is refused in one line, never waited on forever: a reader
that opens a FIFO blocks until a writer comes (fifo(7)), and none ever does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kmsgd.ring import layout as ring

pytestmark = pytest.mark.slow  # a subprocess per case: seconds in all


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [sys.executable, "-m", "kmsgd.cli", *args],
            input=stdin.decode() if stdin is not None else None,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            stdin=None if stdin is not None else subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"kmsgd {' '.join(args)} hung on a FIFO")


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ("analyze", "{fifo}"),
        ("boots", "--ring", "{fifo}"),
        ("dump", "--ring", "{fifo}"),
        ("last-boot", "--ring", "{fifo}", "--no-journal"),
        ("boots", "--ring", "{ring}", "--config", "{fifo}"),
    ],
    ids=["analyze", "boots", "dump", "last-boot", "config"],
)
def test_a_fifo_is_refused_in_one_line(tmp_path: Path, fifo: Path, argv: tuple[str, ...]) -> None:
    from kmsgd.ring.writer import RingWriter

    RingWriter(str(tmp_path / "ring"), size=ring.MIN_SIZE).close()
    args = [a.format(fifo=fifo, ring=tmp_path / "ring") for a in argv]
    out = run(*args)
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert str(fifo) in out.stderr and "Traceback" not in out.stderr


def test_analyze_from_a_stdin_pipe_still_works() -> None:
    line = b"[  12.000000] amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n"
    out = run("analyze", "-", "--format", "json", stdin=line)
    assert out.returncode == 0, out.stderr
    assert '"amdgpu_gpu_reset"' in out.stdout
