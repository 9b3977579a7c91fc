"""Running the real `kmsgd run` as a subprocess in tests, and reading back its ring."""

from __future__ import annotations

import atexit
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

_STARTED: list[subprocess.Popen[bytes]] = []


@atexit.register
def _reap() -> None:
    """A test that fails halfway leaves its daemon running: end them all with the session."""
    for proc in _STARTED:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def start(
    ring: Path,
    *,
    kmsg: str,
    proc: str = "/proc",
    sys_root: str | None = None,
    heartbeat: float = 0.2,
    sysctl: bool = False,
    settings: dict[str, str] | None = None,
    tables: str = "",
) -> subprocess.Popen[bytes]:
    """The real `kmsgd run` on a 1 MiB ring, its state, textfile and fs root under the ring's
    directory unless `settings` says otherwise; sysctls only when asked (they are the host's)."""
    state = ring.parent / "state"
    state.mkdir(exist_ok=True)
    values = {"state_dir": str(state), "textfile_dir": str(state), "fs_root": str(state)}
    values |= settings or {}
    cfg = ring.parent / "kmsgd.toml"
    cfg.write_text(
        "[kmsgd]\n" + "".join(f'{k} = "{v}"\n' for k, v in values.items()) + tables
    )  # `tables`: more TOML after [kmsgd] ([incident] ...)
    cmd = [sys.executable, "-m", "kmsgd", "run", "--ring", str(ring), "--ring-size", "1M"]
    cmd += ["--kmsg", kmsg, "--proc", proc, "--config", str(cfg), "--no-mlock"]
    cmd += ["--heartbeat", str(heartbeat)] + ([] if sysctl else ["--no-sysctl"])
    cmd += ["--sys", sys_root] if sys_root else []
    daemon = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _STARTED.append(daemon)
    return daemon


def start_on_box(
    tmp_path: Path, sys_root: Path, proc_root: Path, *, tables: str = ""
) -> tuple[subprocess.Popen[bytes], Path, int]:
    """`start` on a fake box's /sys and /proc (tests/fakes.py), with no textfile, reading a
    FIFO in place of /dev/kmsg: the daemon, its ring, and the FIFO's end to write kernel
    records to (read-write, so neither side's open waits; the caller closes it)."""
    kmsg = tmp_path / "kmsg"
    os.mkfifo(kmsg)
    ring = tmp_path / "ring"
    daemon = start(
        ring,
        kmsg=str(kmsg),
        proc=str(proc_root),
        sys_root=str(sys_root),
        settings={"textfile_dir": ""},
        tables=tables,
    )
    return daemon, ring, os.open(kmsg, os.O_RDWR)


def kmsgd(*args: str) -> subprocess.CompletedProcess[str]:
    """The CLI as a subprocess; a report it prints is checked against the JSON schema."""
    from reportschema import validate_output

    out = subprocess.run(
        [sys.executable, "-m", "kmsgd.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if out.returncode == 0 and "json" in args:
        validate_output(out.stdout)
    return out


def dump(ring: Path, boot: str = "0") -> list[dict[str, Any]]:
    out = kmsgd("dump", "--ring", str(ring), "--boot", boot, "--format", "json")
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def wait_for(pred: Any, timeout: float = 15.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            got = pred()
        except (AssertionError, OSError, ValueError):
            got = None
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


def wait_ready(ring: Path, proc: subprocess.Popen[bytes]) -> None:
    """Until this daemon process has made a heartbeat durable."""

    def ready() -> bool:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        if not ring.exists():
            return False
        records = dump(ring)
        starts = [
            i for i, r in enumerate(records) if r["kind"] == "boot" and r["data"]["pid"] == proc.pid
        ]
        return bool(starts) and any(r["kind"] == "heartbeat" for r in records[starts[-1] :])

    wait_for(ready)


def children(pid: int) -> list[int]:
    """The processes `pid` started: a daemon on a kmsg device has its kmsg pump
    (kmsgd/record/kmsgpump.py)."""
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(c) for c in text.split()]


def signal_all(proc: subprocess.Popen[bytes], sig: int) -> None:
    """`sig` to the daemon and to the processes it started (its kmsg pump)."""
    for pid in [*children(proc.pid), proc.pid]:
        os.kill(pid, sig)


def stop(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> int:
    proc.send_signal(sig)
    return proc.wait(timeout=20)


def write_kmsg(line: str) -> None:
    # A fresh fd per line: the devkmsg ratelimit is per open file (10 lines per 5 s).
    fd = os.open("/dev/kmsg", os.O_WRONLY)
    try:
        os.write(fd, line.encode() + b"\n")
    finally:
        os.close(fd)
