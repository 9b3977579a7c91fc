"""The whole fleet path on real files: boots of eight fake hosts played through the recorder,
their post-mortems as `kmsgd last-boot --format export`, stored per host by a real
`systemd-journal-remote`, then `kmsgd fleet` over that directory.

Three amdgpu hosts booted without `iommu=pt` freeze (the planted cause); the other five,
amdgpu and NVIDIA, have `iommu=pt` and end every boot cleanly. Kernels and SMU firmware are
spread over both groups, so only the missing parameter sets the freezing boxes apart.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from fleethosts import Host, exports, fleet, journal_remote, play, store

from kmsgd.fleet import entry_format as f

K1, K2 = "6.8.0-49-generic", "6.11.0-9-generic"
SMC1, SMC2 = "0x00553700", "0x00554600"
HOSTS = (
    Host("gpu-a1", True, False, K1, SMC1, (0, 2, 4)),
    Host("gpu-a2", True, False, K2, SMC2, (1, 3, 4)),
    Host("gpu-a3", True, False, K1, SMC2, (0, 1, 3)),
    Host("gpu-b1", True, True, K1, SMC1, ()),
    Host("gpu-b2", True, True, K2, SMC1, ()),
    Host("gpu-b3", True, True, K2, SMC2, ()),
    Host("gpu-n1", False, True, K1, "", ()),
    Host("gpu-n2", False, True, K2, "", ()),
)
JUDGED = 5  # ended boots per host


@pytest.fixture(scope="module")
def collector(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The collector's directory and each host's export text."""
    exe = journal_remote()
    root = tmp_path_factory.mktemp("fleet")
    out = root / "remote"
    texts: dict[str, bytes] = {}
    with pytest.MonkeyPatch.context() as mp:
        for host in HOSTS:
            m = play(host, root / host.name, JUDGED, mp)
            texts[host.name] = b"".join(exports(m, root / host.name))
            store(exe, out, host.name, texts[host.name])
    return {"dir": out, "texts": texts, "exe": exe, "root": root}


def test_export_is_journal_export_format_with_the_report_inside(collector: dict[str, Any]) -> None:
    text = collector["texts"]["gpu-a1"]
    entries = [e for e in text.split(b"\n\n") if e.strip()]
    assert len(entries) == JUDGED
    first = entries[0]
    assert first.startswith(b"__REALTIME_TIMESTAMP=")
    assert f"MESSAGE_ID={f.MESSAGE_ID}".encode() in first
    assert b"\n_HOSTNAME=gpu-a1\n" in first
    assert b"\n_MACHINE_ID=" + HOSTS[0].machine_id.encode() + b"\n" in first
    assert b"\nKMSGD_PRIMARY=amdgpu_smu_timeout\n" in first
    assert b"\nKMSGD_GPU0_ID=1002:744c\n" in first
    assert b"\nKMSGD_GPU0_FIRMWARE=mec=0x000001f4 smc=0x00553700 sos=0x00270058\n" in first
    assert b"\nKMSGD_BIOS_VERSION=1.40\n" in first
    assert b"\nKMSGD_CPU=AMD EPYC 9354 32-Core\n" in first
    assert b"\nKMSGD_RAM_BYTES=270188638208\n" in first
    # The report is the last field, whole, as compact JSON on one line.
    last = first.rsplit(b"\n", 1)[-1] if not first.endswith(b"\n") else first.splitlines()[-1]
    name, _, value = last.partition(b"=")
    assert name == f.REPORT_JSON.encode()
    doc = json.loads(value)
    assert doc["schema"] == "kmsgd.report/1" and doc["primary"]["tag"] == "amdgpu_smu_timeout"
    assert doc["telemetry"]["config"]["host"]["bios_version"] == "1.40"


def test_journal_remote_kept_every_entry(collector: dict[str, Any]) -> None:
    if shutil.which("journalctl") is None:
        pytest.skip("journalctl is not installed (apt-get install systemd)")
    out = subprocess.run(
        ["journalctl", "-D", str(collector["dir"]), f"MESSAGE_ID={f.MESSAGE_ID}", "-o", "json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == len(HOSTS) * JUDGED
    assert {r["_HOSTNAME"] for r in rows} == {h.name for h in HOSTS}


def test_fleet_finds_the_cluster_and_the_planted_cause(collector: dict[str, Any]) -> None:
    run = fleet("--journal-dir", str(collector["dir"]), "--format", "json")
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["schema"] == "kmsgd.fleet/1"
    assert doc["post_mortems"] == len(HOSTS) * JUDGED
    assert doc["bad_ends"] == 9 and doc["boxes_with_bad_ends"] == 3
    assert len(doc["boxes"]) == len(HOSTS)
    a1 = next(b for b in doc["boxes"] if b["host"] == "gpu-a1")
    assert (a1["boots"], a1["bad_ends"], a1["box"]) == (JUDGED, 3, HOSTS[0].machine_id)
    assert a1["last_bad_end"]["outcome"] not in ("clean_reboot", "clean_shutdown")
    assert a1["last_bad_end"]["primary"] == "amdgpu_smu_timeout"
    assert all(b["bad_ends"] == 0 and b["last_bad_end"] is None for b in doc["boxes"][3:])
    top = doc["clusters"][0]
    assert top["kind"] == "fingerprint" and top["count"] == 9
    assert (
        top["primary"] == "amdgpu_smu_timeout" and top["outcome"] == a1["last_bad_end"]["outcome"]
    )
    assert sorted(b["host"] for b in top["boxes"]) == ["gpu-a1", "gpu-a2", "gpu-a3"]
    assert all(b["bad_ends"] == 3 for b in top["boxes"])
    cause = top["shared"][0]
    assert (cause["attribute"], cause["value"], cause["present"]) == ("cmdline", "iommu=pt", False)
    assert (cause["cluster_count"], cause["cluster_n"]) == (9, 9)
    assert (cause["fleet_count"], cause["fleet_n"]) == (15, 40)
    assert cause["boxes"] == 3 and cause["difference"] == pytest.approx(0.625)
    # Kernels, firmware and GPU model are spread over both groups: none clears the bar.
    assert len(top["shared"]) == 1


def test_text_and_markdown_say_the_same(collector: dict[str, Any]) -> None:
    text = fleet("--journal-dir", str(collector["dir"]))
    assert text.returncode == 0, text.stderr
    assert "40 post-mortems from 8 boxes; 9 bad ends on 3 of them" in text.stdout
    assert "without cmdline iommu=pt: 9 of 9 (100%), fleet 38%, +62 points, 3 boxes" in text.stdout
    md = fleet("--journal-dir", str(collector["dir"]), "--format", "md")
    assert md.returncode == 0 and md.stdout.startswith("# kmsgd fleet")
    assert "| without cmdline iommu=pt | 9 of 9 (100%) | 38% | +62 points | 3 |" in md.stdout


def test_the_same_boot_sent_twice_counts_once(collector: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "remote"
    for host in HOSTS:
        store(collector["exe"], out, host.name, collector["texts"][host.name])
    # an operator piped `last-boot --format export` of a1's boots to the collector before the
    # service did: the same judged boots, sent a minute earlier
    again = re.sub(
        rb"__REALTIME_TIMESTAMP=(\d+)",
        lambda m: b"__REALTIME_TIMESTAMP=%d" % (int(m.group(1)) - 60_000_000),
        collector["texts"]["gpu-a1"],
    )
    store(collector["exe"], out, "gpu-a1-again", again)
    doc = json.loads(fleet("--journal-dir", str(out), "--format", "json").stdout)
    assert doc["post_mortems"] == len(HOSTS) * JUDGED and doc["duplicates"] == JUDGED
    assert doc["clusters"][0]["count"] == 9
