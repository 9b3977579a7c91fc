"""`kmsgd fleet` on what a collector directory may really hold: foreign entries, truncated
journal files, entries of a kmsgd that sent no attributes, nothing in the window, no files.

Entries are built in export format by hand here (the recorder adds nothing to these
questions) and stored by the real systemd-journal-remote.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fleethosts import fleet, journal_remote, store

from kmsgd.fleet import entry_format as f

NOW_US = int(time.time() * 1e6)
HOUR_US = 3600 * 1_000_000


def post_mortem(
    host: str, n: int, outcome: str, *, t_us: int, attributes: bool = True, cmdline: str = ""
) -> bytes:
    """One kmsgd entry as `last-boot --format export` writes it (`attributes=False`: as an
    older kmsgd sent it, without KMSGD_VERSION and what follows)."""
    bad = not outcome.startswith("clean")
    fields = [
        ("__REALTIME_TIMESTAMP", str(t_us)),
        ("_HOSTNAME", host),
        ("MESSAGE", f"kmsgd: boot {n:08x} ended: {outcome} (high)"),
        ("MESSAGE_ID", f.MESSAGE_ID),
        ("PRIORITY", "4" if bad else "5"),
        (f.BOOT_ID, f"{hash(host) & 0xFFFF:04x}{n:028x}"),
        (f.OUTCOME, outcome),
        (f.CONFIDENCE, "high"),
        (f.PRIMARY, "amdgpu_smu_timeout" if bad else ""),
        (f.FINGERPRINT, "5e1f0c2a9b7d4e31" if bad else "05cbc4633665ff1b"),
    ]
    if attributes:
        attrs = [(f.KERNEL, "6.8.0-49-generic"), (f.CMDLINE, cmdline), (f.GPU_COUNT, "0")]
        fields += [(f.VERSION, "0.1.0"), (f.END_USEC, str(t_us - 60_000_000)), *attrs]
        fields += [(f.CONFIG_ID, f.config_id(attrs)), (f.REPORT_JSON, '{"outcome":"x"}')]
    return f.encode_entry(fields)


def foreign(host: str, t_us: int, i: int) -> bytes:
    return f.encode_entry(
        [
            ("__REALTIME_TIMESTAMP", str(t_us)),
            ("_HOSTNAME", host),
            ("MESSAGE", f"Started session {i} of user ops."),
            ("SYSLOG_IDENTIFIER", "systemd-logind"),
            ("KMSGD_OUTCOME", "hard_freeze"),  # a look-alike field: no MESSAGE_ID, not ours
        ]
    )


@pytest.fixture(scope="module")
def exe() -> str:
    return journal_remote()


def test_foreign_entries_are_passed_over(exe: str, tmp_path: Path) -> None:
    out = tmp_path / "remote"
    data = b"".join(foreign("web-1", NOW_US - HOUR_US + i, i) for i in range(50))
    data += post_mortem("gpu-1", 1, "hard_freeze", t_us=NOW_US - HOUR_US // 2)
    store(exe, out, "mixed", data)
    store(exe, out, "web-2", b"".join(foreign("web-2", NOW_US - HOUR_US + i, i) for i in range(9)))
    run = fleet("--journal-dir", str(out), "--format", "json")
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert (doc["files"], doc["entries"], doc["post_mortems"], doc["bad_ends"]) == (2, 1, 1, 1)
    assert [b["host"] for b in doc["boxes"]] == ["gpu-1"]


def test_only_foreign_entries_is_an_empty_answer(exe: str, tmp_path: Path) -> None:
    out = tmp_path / "remote"
    store(exe, out, "web-1", b"".join(foreign("web-1", NOW_US - HOUR_US + i, i) for i in range(9)))
    run = fleet("--journal-dir", str(out))
    assert run.returncode == 0, run.stderr
    assert "0 post-mortems from 0 boxes" in run.stdout
    assert "no kmsgd post-mortems in this window" in run.stdout


def test_a_truncated_file_costs_only_itself(exe: str, tmp_path: Path) -> None:
    out = tmp_path / "remote"
    good = b"".join(
        post_mortem(f"gpu-{h}", n, "clean_reboot", t_us=NOW_US - HOUR_US + n)
        for h in range(3)
        for n in range(5)
    )
    store(exe, out, "good", good)
    bad = store(
        exe,
        out,
        "cut",
        b"".join(
            post_mortem("gpu-9", n, "hard_freeze", t_us=NOW_US - HOUR_US + n) for n in range(200)
        ),
    )
    raw = bad.read_bytes()
    bad.write_bytes(raw[: len(raw) // 3])  # a disk that filled up, a copy cut short
    run = fleet("--journal-dir", str(out), "--format", "json")
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    hosts = {b["host"] for b in doc["boxes"]}
    assert {"gpu-0", "gpu-1", "gpu-2"} <= hosts
    # whatever libsystemd could still read of the cut file is kept; if it refused the file,
    # the answer names it
    if "gpu-9" not in hosts:
        assert [s["file"] for s in doc["skipped"]] == [str(bad)]
        assert doc["skipped"][0]["why"].startswith("unreadable (")
    text = fleet("--journal-dir", str(out)).stdout
    assert f"skipped {bad}: unreadable (" in text or "gpu-9" in text


def test_only_unreadable_files_is_bad_input(tmp_path: Path) -> None:
    out = tmp_path / "remote"
    out.mkdir()
    (out / "remote-gpu-1.journal").write_bytes(b"LPKSHHRH" + b"\0" * 100)
    run = fleet("--journal-dir", str(out))
    assert run.returncode == 2
    assert run.stdout == ""
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and "no readable journal file" in lines[0]


def test_entries_without_attributes_count_but_do_not_vote(exe: str, tmp_path: Path) -> None:
    out = tmp_path / "remote"
    t = NOW_US - HOUR_US
    data = [post_mortem("old-1", n, "hard_freeze", t_us=t + n, attributes=False) for n in range(3)]
    data += [post_mortem("new-1", n, "hard_freeze", t_us=t + n) for n in range(2)]
    data += [post_mortem("new-2", n, "clean_reboot", t_us=t + n) for n in range(30)]
    store(exe, out, "all", b"".join(data))
    doc = json.loads(fleet("--journal-dir", str(out), "--format", "json").stdout)
    assert (doc["post_mortems"], doc["bad_ends"], doc["fleet_n"]) == (35, 5, 32)
    (cluster,) = doc["clusters"]
    assert (cluster["count"], cluster["with_attributes"]) == (5, 2)
    assert cluster["shared"] == []
    assert "3 of 5 bad ends from a kmsgd without attributes" in cluster["note"]
    assert "too few to tell" in cluster["note"]
    old = next(b for b in doc["boxes"] if b["host"] == "old-1")
    assert old["bad_ends"] == 3 and old["kmsgd_version"] is None
    assert any("carry no attributes" in n for n in doc["notes"])


def test_an_empty_window_is_an_empty_answer(exe: str, tmp_path: Path) -> None:
    out = tmp_path / "remote"
    store(
        exe, out, "gpu-1", post_mortem("gpu-1", 1, "hard_freeze", t_us=NOW_US - 40 * 24 * HOUR_US)
    )
    for fmt in ("text", "md", "json"):
        run = fleet("--journal-dir", str(out), "--format", fmt)  # default: the last 30 days
        assert run.returncode == 0, run.stderr
        assert run.stderr == ""
    doc: dict[str, Any] = json.loads(run.stdout)
    assert (doc["post_mortems"], doc["boxes"], doc["clusters"]) == (0, [], [])
    wide = json.loads(
        fleet("--journal-dir", str(out), "--since", "-60d", "--format", "json").stdout
    )
    assert wide["bad_ends"] == 1


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--journal-dir", "/nonexistent/remote"], "/nonexistent/remote: no such directory"),
        (["--journal-dir", "{empty}"], "no journal files"),
        (["--journal-dir", "{empty}", "--since", "last tuesday"], "not a time: 'last tuesday'"),
        (["--journal-dir", "{empty}", "--since", "-1d", "--until", "-2d"], "is not before"),
    ],
)
def test_unusable_input_is_one_line_and_status_2(
    args: list[str], says: str, tmp_path: Path
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    run = fleet(*(a.replace("{empty}", str(empty)) for a in args))
    assert run.returncode == 2, run.stdout
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and says in lines[0], run.stderr
    assert "Traceback" not in run.stderr


def test_export_refuses_redact() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "kmsgd.cli", "last-boot", "--format", "export", "--redact"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.splitlines() == [
        "kmsgd: --redact does not apply to --format export (the entry goes to your own "
        "collector, filed under the box's real host name)"
    ]
