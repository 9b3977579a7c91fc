"""`kmsgd fleet` trusts no box: one box's entries claiming another box's identity, a host name
with a newline and terminal escapes, a 100 KB tag. Entries are built in export format and
stored by the real systemd-journal-remote, one file per peer as a collector writes them."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from fleethosts import fleet, journal_remote, store

from kmsgd.fleet import entry_format as f
from kmsgd.fleet.source import peer_of

NOW_US = int(time.time() * 1e6)
HOUR_US = 3600 * 1_000_000
MID = {"gpu-a": "a" * 32, "gpu-b": "b" * 32, "gpu-c": "c" * 32}
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def pm(host: str, boot: int, outcome: str, t_us: int, **extra: str) -> bytes:
    bad = not outcome.startswith("clean")
    fields = {
        "__REALTIME_TIMESTAMP": str(t_us),
        "_MACHINE_ID": MID.get(host, "d" * 32),
        "_HOSTNAME": host,
        "MESSAGE": f"kmsgd: boot {boot:08x} ended: {outcome} (high)",
        "MESSAGE_ID": f.MESSAGE_ID,
        f.BOOT_ID: f"{boot:032x}",
        f.OUTCOME: outcome,
        f.CONFIDENCE: "high",
        f.PRIMARY: "amdgpu_smu_timeout" if bad else "",
        f.FINGERPRINT: "5e1f0c2a9b7d4e31" if bad else "05cbc4633665ff1b",
    }
    fields.update(extra)
    return f.encode_entry(list(fields.items()))


@pytest.fixture(scope="module")
def exe() -> str:
    return journal_remote()


@pytest.mark.parametrize(
    ("name", "peer"),
    [
        ("remote-gpu-01.journal", "gpu-01"),
        ("remote-10.1.2.3.journal", "10.1.2.3"),
        (
            "remote-gpu-01@0f1e2d3c4b5a69788796a5b4c3d2e1f0-0000000000000001-00060a1b2c3d4e5f.journal~",
            "gpu-01",
        ),
        ("remote.journal", ""),
        ("system.journal", ""),
    ],
)
def test_the_peer_is_the_collector_s_file_name(name: str, peer: str) -> None:
    assert peer_of(f"/var/log/journal/remote/{name}") == peer


def _spoofed(exe: str, out: Path) -> None:
    """gpu-b froze (boot 7); gpu-a's file then carries two entries claiming to be gpu-b: a
    clean end of that very boot, and a newer clean boot."""
    store(exe, out, "gpu-b", pm("gpu-b", 7, "hard_freeze", NOW_US - 3 * HOUR_US))
    data = pm("gpu-a", 1, "clean_reboot", NOW_US - 3 * HOUR_US)
    data += pm("gpu-b", 7, "clean_reboot", NOW_US - 2 * HOUR_US)
    data += pm("gpu-b", 8, "clean_reboot", NOW_US - HOUR_US)
    store(exe, out, "gpu-a", data)


def test_a_box_cannot_hide_another_box_s_bad_end(exe: str, tmp_path: Path) -> None:
    out = tmp_path / "remote"
    _spoofed(exe, out)
    run = fleet("--journal-dir", str(out), "--format", "json")
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["bad_ends"] == 1 and doc["duplicates"] == 0
    real = [b for b in doc["boxes"] if b["source"] == "gpu-b"]
    assert len(real) == 1 and real[0]["bad_ends"] == 1
    assert real[0]["last_outcome"] == "hard_freeze"
    assert real[0]["identity"] == {"also_claimed_from": ["gpu-a"], "identities_in_source": 1}
    fake = [b for b in doc["boxes"] if b["source"] == "gpu-a" and b["host"] == "gpu-b"]
    assert fake[0]["identity"]["also_claimed_from"] == ["gpu-b"]
    assert fake[0]["identity"]["identities_in_source"] == 2
    notes = " ".join(doc["notes"])
    assert "identity gpu-b" in notes and "remote-gpu-a holds entries claiming 2 identities" in notes


def test_the_text_answer_says_so(exe: str, tmp_path: Path) -> None:
    out = tmp_path / "remote"
    _spoofed(exe, out)
    text = fleet("--journal-dir", str(out)).stdout
    assert "note: identity gpu-b" in text and "claimed by the entries of 2 collector files" in text


def test_the_same_boot_sent_again_from_another_file_counts_once(exe: str, tmp_path: Path) -> None:
    out = tmp_path / "remote"
    store(exe, out, "gpu-b", pm("gpu-b", 7, "hard_freeze", NOW_US - 2 * HOUR_US))
    store(exe, out, "gpu-b-again", pm("gpu-b", 7, "hard_freeze", NOW_US - 3 * HOUR_US))
    doc = json.loads(fleet("--journal-dir", str(out), "--format", "json").stdout)
    assert (doc["post_mortems"], doc["duplicates"], doc["bad_ends"]) == (1, 1, 1)


@pytest.mark.parametrize("second_id", ["c" * 32, "e" * 32], ids=["same-id", "other-id"])
def test_two_peers_claiming_one_host_name_are_two_boxes_flagged(
    exe: str, tmp_path: Path, second_id: str
) -> None:
    """Two collector files (gpu-c's and the peer 10.0.0.9's) each send a freeze claiming the
    host gpu-c, with gpu-c's machine id or another: two boxes, each flagged, in the box table
    and in the cluster."""
    out = tmp_path / "remote"
    store(exe, out, "gpu-c", pm("gpu-c", 1, "hard_freeze", NOW_US - 2 * HOUR_US))
    spoof = pm("gpu-c", 2, "hard_freeze", NOW_US - HOUR_US, _MACHINE_ID=second_id)
    store(exe, out, "10.0.0.9", spoof)
    doc = json.loads(fleet("--journal-dir", str(out), "--format", "json").stdout)
    claimants = {b["source"]: b for b in doc["boxes"] if b["host"] == "gpu-c"}
    assert sorted(claimants) == ["10.0.0.9", "gpu-c"]
    assert claimants["gpu-c"]["identity"]["also_claimed_from"] == ["10.0.0.9"]
    assert claimants["10.0.0.9"]["identity"]["also_claimed_from"] == ["gpu-c"]
    assert doc["boxes_with_bad_ends"] == 2
    boxes = {b["host"]: b["bad_ends"] for b in doc["clusters"][0]["boxes"]}
    assert boxes == {"gpu-c via remote-10.0.0.9": 1, "gpu-c via remote-gpu-c": 1}
    assert any("identity gpu-c" in n and "2 collector files" in n for n in doc["notes"])
    text = fleet("--journal-dir", str(out)).stdout
    assert "2 bad ends on 2 boxes" in text
    assert "gpu-c via remote-10.0.0.9" in text and "gpu-c via remote-gpu-c" in text


HOSTILE_HOST = (
    "gpu-c\nBoxes with bad ends (most first)\n  gpu-z  1  0  clean \x1b]52;c;cHduZWQ=\x07\x1b[2J"
)


@pytest.mark.parametrize("fmt", ["text", "md"])
def test_a_host_name_cannot_forge_lines_or_reach_the_terminal(
    exe: str, tmp_path: Path, fmt: str
) -> None:
    out = tmp_path / "remote"
    store(exe, out, "gpu-c", pm(HOSTILE_HOST, 3, "hard_freeze", NOW_US - HOUR_US))
    run = fleet("--journal-dir", str(out), "--format", fmt)
    assert run.returncode == 0, run.stderr
    assert not CONTROL.search(run.stdout)
    assert not any(line.startswith("  gpu-z") for line in run.stdout.splitlines())
    assert "gpu-c\\x0aBoxes with bad ends" in run.stdout
    assert "\\x1b]52;c;cHduZWQ=\\x07" in run.stdout
    doc = json.loads(fleet("--journal-dir", str(out), "--format", "json").stdout)
    assert doc["boxes"][0]["host"] == HOSTILE_HOST  # JSON keeps the value exactly


@pytest.mark.parametrize("fmt", ["text", "md", "json"])
def test_a_100_kb_tag_makes_no_large_report(exe: str, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / "remote"
    big = "x" * 100_000
    entries = [
        pm("gpu-a", n, "hard_freeze", NOW_US - HOUR_US + n, **{f.PRIMARY: big, f.FINGERPRINT: big})
        for n in range(3)
    ]
    store(exe, out, "gpu-a", b"".join(entries))
    run = fleet("--journal-dir", str(out), "--format", fmt)
    assert run.returncode == 0, run.stderr
    assert len(run.stdout) < 16_000, len(run.stdout)
    assert "(99744 more characters)" in run.stdout
