"""The journal witness on real journal files made by systemd-journal-remote from export text.

Each test runs against both readers: systemd-python's `journal.Reader` and the fallback that
runs `journalctl -o json`. They must agree, because which one a host has is luck.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from journals import CUT, POWEROFF, REBOOT, TYPED

from kmsgd.errors import BadInput
from kmsgd.judge.shutdown import ShutdownKind, shutdown_evidence
from kmsgd.logparse import systemd_journal as journal
from kmsgd.logparse.systemd_journal import JournalEntry, final_entries, kernel_records, list_boots
from kmsgd.types import Confidence


@pytest.fixture(params=["binding", "journalctl"])
def reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    if request.param == "binding":
        if journal._binding() is None:
            pytest.skip("systemd-python is not installed")
    else:
        if shutil.which("journalctl") is None:
            pytest.skip("journalctl is not installed")
        monkeypatch.setattr(journal, "_binding", lambda: None)
    yield request.param


def test_several_boots_listed_in_order(journal_dir: Path, reader: str) -> None:
    boots = list_boots(str(journal_dir))
    assert [b.boot_id for b in boots] == [POWEROFF, REBOOT, CUT, TYPED]
    assert all(b.first_realtime_us < b.last_realtime_us for b in boots)
    assert boots[0].last_realtime_us < boots[1].first_realtime_us


def test_final_entries_are_the_last_n_of_that_boot_in_order(journal_dir: Path, reader: str) -> None:
    last3 = final_entries(POWEROFF, n=3, directory=str(journal_dir))
    assert [e.message for e in last3] == [
        "Sending SIGTERM to remaining processes...",
        "Received SIGTERM from PID 1 (systemd-shutdow).",
        "Journal stopped",
    ]
    every = final_entries(CUT, n=1000, directory=str(journal_dir))
    assert len(every) == 32
    assert {e.boot_id for e in every} == {CUT}
    stamps = [e.realtime_us for e in every]
    assert stamps == sorted(stamps)
    assert every[-1].message.startswith("amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout")


def test_entry_fields(journal_dir: Path, reader: str) -> None:
    entries = final_entries(POWEROFF, directory=str(journal_dir))
    logind = next(e for e in entries if e.identifier == "systemd-logind" and "down" in e.message)
    assert (logind.comm, logind.pid, logind.priority, logind.transport) == (
        "systemd-logind",
        612,
        5,
        "journal",
    )
    assert logind.unit == "systemd-logind.service"
    assert logind.shutdown == "power-off"
    assert logind.message_id == "98268866d1d54a499c4e98921d93bc40"
    sync = next(e for e in entries if e.identifier == "systemd-shutdown")
    assert (sync.transport, sync.pid, sync.comm) == ("kernel", 1, "")  # written via /dev/kmsg


def test_binary_message_is_decoded_not_dropped(journal_dir: Path, reader: str) -> None:
    entries = final_entries(CUT, directory=str(journal_dir))
    odd = [e for e in entries if e.message.startswith("llama_model_loader")]
    assert len(odd) == 1
    assert "\ufffd" in odd[0].message  # the broken UTF-8 sequence, replaced


def test_clean_poweroff(journal_dir: Path, reader: str) -> None:
    ev = shutdown_evidence(final_entries(POWEROFF, directory=str(journal_dir)))
    assert ev.clean and ev.final_stage and ev.requested and ev.journal_stopped
    assert ev.kind is ShutdownKind.POWEROFF
    assert ev.confidence is Confidence.HIGH
    shown = [e.message for e in ev.evidence]
    assert "Reached target poweroff.target - System Power Off." in shown
    assert shown[-1] == "Journal stopped"


def test_clean_reboot(journal_dir: Path, reader: str) -> None:
    ev = shutdown_evidence(final_entries(REBOOT, directory=str(journal_dir)))
    assert ev.clean
    assert ev.kind is ShutdownKind.REBOOT


def test_boot_cut_mid_stream_is_not_clean(journal_dir: Path, reader: str) -> None:
    entries = final_entries(CUT, directory=str(journal_dir))
    # a journald restart in the middle left a "Journal stopped": it must not count
    assert any(e.message == "Journal stopped" for e in entries)
    ev = shutdown_evidence(entries)
    assert not ev.clean and not ev.journal_stopped and not ev.requested
    assert ev.kind is None
    assert ev.last is not None and "ring gfx_0.0.0 timeout" in ev.last.message


def test_typed_commands_and_lookalikes_never_count(journal_dir: Path, reader: str) -> None:
    entries = final_entries(TYPED, directory=str(journal_dir))
    texts = [e.message for e in entries]
    # the lines are there, within the final window: what is tested is that they do not count
    assert "alice: sudo journalctl | grep systemd-shutdown" in texts
    assert "Invalid user reboot from 198.51.100.23 port 40112" in texts
    assert "System is rebooting." in texts and "Powering off." in texts
    assert "Reached target shutdown.target - Shutdown." in texts  # alice's user manager
    ev = shutdown_evidence(entries)
    assert not ev.clean and not ev.requested and not ev.journal_stopped
    assert ev.kind is None and ev.evidence == ()


def test_unknown_boot_gives_nothing(journal_dir: Path, reader: str) -> None:
    entries = final_entries("9" * 32, directory=str(journal_dir))
    assert entries == []
    ev = shutdown_evidence(entries)
    assert not ev.clean and ev.confidence is Confidence.LOW


def test_kernel_records(journal_dir: Path, reader: str) -> None:
    recs = kernel_records(CUT, directory=str(journal_dir))
    assert recs[0].message.startswith("Linux version 6.1.0-21-amd64")
    assert recs[0].ts_usec == 1500  # _SOURCE_MONOTONIC_TIMESTAMP, not journald's receive time
    # journald read it 3.2 s late; the wall clock is stepped back to when the kernel logged it
    assert recs[0].wall_us == 1714995000001500
    assert recs[0].level == 5
    assert not any("ollama" in r.message for r in recs)  # kernel transport only
    assert recs[-1].message.startswith("amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout")
    assert recs[-1].level == 3
    last2 = kernel_records(CUT, n=2, directory=str(journal_dir))
    assert last2 == recs[-2:]
    # userspace lines written to /dev/kmsg keep their "ident[pid]: " prefix, as in the ring
    shut = kernel_records(POWEROFF, n=1, directory=str(journal_dir))
    assert shut[0].message == "systemd-shutdown[1]: Sending SIGTERM to remaining processes..."


@pytest.mark.parametrize("bad", ["", "1111", "../../etc/passwd", "1" * 31 + "g", "-n 5", "1" * 33])
def test_bad_boot_id_is_refused_before_anything_runs(
    bad: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def forbidden(*a: Any, **k: Any) -> None:
        raise AssertionError("journalctl must not run")

    monkeypatch.setattr(journal, "_binding", lambda: None)
    monkeypatch.setattr(subprocess, "run", forbidden)
    with pytest.raises(BadInput):
        final_entries(bad)
    with pytest.raises(BadInput):
        kernel_records(bad)


def test_journalctl_argv_is_fixed(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[list[str], dict[str, Any]]] = []

    def fake_run(argv: list[str], **kw: Any) -> subprocess.CompletedProcess[bytes]:
        seen.append((argv, kw))
        return subprocess.CompletedProcess(argv, 0, b"", b"")

    monkeypatch.setattr(journal, "_binding", lambda: None)
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/journalctl")
    monkeypatch.setattr(subprocess, "run", fake_run)
    final_entries("0123456789ABCDEF-0123456789abcdef", n=50, directory="/var/log/journal")
    argv, kw = seen[0]
    assert argv == [
        "/usr/bin/journalctl",
        "--no-pager",
        "-q",
        "-o",
        "json",
        "-n",
        "50",
        "_BOOT_ID=0123456789abcdef0123456789abcdef",
        "--directory=/var/log/journal",
    ]
    assert not kw.get("shell")


def _e(
    message: str,
    ident: str = "systemd",
    pid: int | None = 1,
    comm: str = "systemd",
    transport: str = "journal",
    **kw: Any,
) -> JournalEntry:
    return JournalEntry(0, 0, 6, ident, comm, pid, message, transport, "", **kw)


def _journald(message: str) -> JournalEntry:
    return _e(message, "systemd-journald", 301, "systemd-journal", "driver")


NORMAL = _e("Started ollama.service - Ollama Service.")


def test_shutdown_requested_but_never_finished() -> None:
    """A hang while stopping services: logind accepted the reboot, PID 1 never got far."""
    entries = [
        NORMAL,
        _e("System is rebooting.", "systemd-logind", 612, "systemd-logind", shutdown="reboot"),
        _e("Stopping ollama.service - Ollama Service..."),
    ]
    ev = shutdown_evidence(entries)
    assert ev.requested and not ev.clean
    assert ev.kind is ShutdownKind.REBOOT
    assert ev.confidence is Confidence.MEDIUM


def test_markers_before_a_journald_restart_do_not_count() -> None:
    entries = [
        _e("Reached target shutdown.target - System Shutdown."),  # e.g. from an initrd phase
        _journald("Journal stopped"),
        _journald("Journal started"),
        NORMAL,
    ]
    ev = shutdown_evidence(entries)
    assert not ev.clean and not ev.journal_stopped and ev.evidence == ()


def test_journal_stopped_alone_is_not_a_clean_shutdown() -> None:
    ev = shutdown_evidence([NORMAL, _journald("Journal stopped")])
    assert ev.journal_stopped and not ev.clean
    assert ev.confidence is Confidence.LOW


@pytest.mark.parametrize(
    ("entries", "kind"),
    [
        ([_e("Reached target Power-Off.")], ShutdownKind.POWEROFF),  # systemd < 247 wording
        ([_e("Reached target kexec.target - Reboot via kexec.")], ShutdownKind.KEXEC),
        ([_e("Reached target halt.target - System Halt.")], ShutdownKind.HALT),
        ([_e("Shutting down.")], ShutdownKind.UNKNOWN),
        # logind asked for a reboot, but systemd-shutdown's own last word wins
        (
            [
                _e("System is rebooting.", "systemd-logind", 612, "systemd-logind"),
                _e("Powering off.", "systemd-shutdown", 1, "", "kernel"),
            ],
            ShutdownKind.POWEROFF,
        ),
        ([_e("Rebooting with kexec.", "systemd-shutdown", 1, "", "kernel")], ShutdownKind.KEXEC),
    ],
)
def test_kind_of_clean_end(entries: list[JournalEntry], kind: ShutdownKind) -> None:
    ev = shutdown_evidence([NORMAL, *entries])
    assert ev.clean
    assert ev.kind is kind
    assert ev.confidence is Confidence.MEDIUM  # no "Journal stopped" after it


@pytest.mark.parametrize(
    "entry",
    [
        _e("Reached target shutdown.target - Shutdown.", pid=3050),  # a user's systemd
        _e("Reached target poweroff.target - System Power Off.", pid=4242, comm="logger"),
        _e("System is powering down.", "systemd-logind", 3131, "logger", "syslog"),
        _e("Powering off.", "systemd-shutdown", 3130, "logger", "syslog"),
        _e("Journal stopped", "systemd-journald", 3132, "systemd-cat", "stdout"),
        _e("alice: sudo journalctl | grep systemd-shutdown", "bash", 3120, "logger", "syslog"),
        _e("Received disconnect from 192.0.2.10 port 50522:11: reboot", "sshd", 3002, "sshd"),
        _e("echo 'Reached target poweroff.target - System Power Off.'", "bash", 77, "bash"),
    ],
)
def test_lookalikes_never_count(entry: JournalEntry) -> None:
    ev = shutdown_evidence([NORMAL, entry])
    assert not ev.clean and not ev.requested and not ev.journal_stopped
    assert ev.kind is None
