"""Capture against the real /dev/kmsg of this machine (root): durable before a SIGKILL."""

from __future__ import annotations

import signal
import time
import uuid
from pathlib import Path

import pytest
from conftest import kmsg_writable
from daemon import dump, start, stop, wait_for, wait_ready, write_kmsg

pytestmark = pytest.mark.kmsg
if (why := kmsg_writable()) is not None:
    pytestmark = [pytest.mark.kmsg, pytest.mark.skip(reason=why)]


def messages(ring: Path) -> list[str]:
    return [r["data"]["message"] for r in dump(ring) if r["kind"] == "kernel"]


def test_warning_lines_are_durable_before_a_sigkill(tmp_path: Path) -> None:
    ring = tmp_path / "ring"
    daemon = start(ring, kmsg="/dev/kmsg")
    wait_ready(ring, daemon)
    tag = uuid.uuid4().hex[:12]
    lines = [f"kmsgd-test {tag} warning {i}" for i in range(30)]
    for line in lines:
        write_kmsg(f"<4>{line}")
    # The promise: warning-level records are durable within 20 ms of being logged.
    time.sleep(0.2)
    daemon.send_signal(signal.SIGKILL)
    daemon.wait(timeout=10)
    got = [m for m in messages(ring) if tag in m]
    assert got == lines


@pytest.mark.slow
def test_restart_catches_up_without_duplicates(tmp_path: Path) -> None:
    ring = tmp_path / "ring"
    tag = uuid.uuid4().hex[:12]
    daemon = start(ring, kmsg="/dev/kmsg")
    wait_ready(ring, daemon)
    write_kmsg(f"<4>kmsgd-test {tag} before")
    wait_for(lambda: any(tag in m for m in messages(ring)))
    daemon.kill()
    daemon.wait(timeout=10)
    write_kmsg(f"<4>kmsgd-test {tag} while down")  # logged while no recorder runs
    daemon = start(ring, kmsg="/dev/kmsg")
    wait_ready(ring, daemon)
    wait_for(lambda: any(f"{tag} while down" in m for m in messages(ring)))
    assert stop(daemon) == 0
    ours = [m for m in messages(ring) if tag in m]
    assert ours == [f"kmsgd-test {tag} before", f"kmsgd-test {tag} while down"]
    kernel = [r["data"]["seq"] for r in dump(ring) if r["kind"] == "kernel"]
    assert len(kernel) == len(set(kernel))
