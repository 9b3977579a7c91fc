"""Shared fixtures: fake proc roots, so tests can play boots of machines we do not have."""

from __future__ import annotations

import os
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest


def make_proc(root: Path, boot_id: str | None = None, *, uptime_s: float = 12.5) -> Path:
    """A minimal /proc: boot id, uptime, btime, cmdline, kernel release, hostname."""
    boot_id = boot_id or str(uuid.uuid4())
    (root / "sys/kernel/random").mkdir(parents=True, exist_ok=True)
    (root / "sys/kernel/random/boot_id").write_text(boot_id + "\n")
    (root / "sys/kernel/osrelease").write_text("6.8.0-test\n")
    (root / "sys/kernel/hostname").write_text("gpu-box-7\n")
    (root / "uptime").write_text(f"{uptime_s:.2f} 3.00\n")
    (root / "stat").write_text("cpu  1 2 3 4\nbtime 1764400000\nprocesses 5\n")
    (root / "cmdline").write_bytes(b"BOOT_IMAGE=/vmlinuz root=/dev/sda1 iommu=pt\0")
    return root


@pytest.fixture
def fake_proc(tmp_path: Path) -> Path:
    return make_proc(tmp_path / "proc")


@pytest.fixture(scope="module", autouse=True)
def _fuzz_counts(request: pytest.FixtureRequest) -> Iterator[None]:
    """After a fuzz module (one with a `tried` counter, fuzz/budget.py): one line of the inputs
    its tests tried, for `pytest -s`."""
    yield
    tried = getattr(request.module, "tried", None)
    if isinstance(tried, Counter):
        from fuzz.budget import report  # hypothesis: only where a module fuzzes

        print(report(request.module.__name__.rpartition(".")[2], tried))


def kmsg_writable() -> str | None:
    """None when /dev/kmsg can be written and read here, else the reason it cannot."""
    if not os.path.exists("/dev/kmsg"):
        return "/dev/kmsg does not exist"
    if not os.access("/dev/kmsg", os.R_OK | os.W_OK):
        return "/dev/kmsg is not readable and writable (needs root)"
    return None


DEVKMSG = Path("/proc/sys/kernel/printk_devkmsg")


@pytest.fixture
def devkmsg_on() -> Iterator[None]:
    """/dev/kmsg writable without its ratelimit for the test (kernel.printk_devkmsg=on),
    restored after; skipped where /dev/kmsg or the sysctl cannot be written."""
    if (why := kmsg_writable()) is not None:
        pytest.skip(why)
    try:
        before = DEVKMSG.read_text().strip()
        DEVKMSG.write_text("on\n")
    except OSError as err:
        pytest.skip(f"cannot set kernel.printk_devkmsg=on: {err}")
    try:
        yield
    finally:
        DEVKMSG.write_text(before + "\n")


# Real journal files, shared by the journal witness tests and the last-boot ones.
# Every kmsgd.report/1 document made in this process is checked against docs/report.schema.json.
import reportschema  # noqa: E402
from journals import journal_dir  # noqa: E402, F401
from sampling import run  # noqa: E402, F401

reportschema.install()
