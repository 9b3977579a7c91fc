"""The report's telemetry and changes sections in text and Markdown: the sentences seeds 003
and 004 need, and no trace of them in a report that has no telemetry."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from telemetry_boots import seed_003, seed_004

from kmsgd.judge.changes import diff_inventory
from kmsgd.judge.telemetry import summarize
from kmsgd.report.model import Report
from kmsgd.report.render import render
from kmsgd.report.render_ring import telemetry_lines
from kmsgd.types import Outcome

BARE = Report(
    outcome=Outcome.ABRUPT_RESET_OR_POWER_LOSS,
    reason="",
    confidence="medium",
    headline="abrupt power loss: heartbeats regular to the end, no kernel message",
)
CARD1 = {"device": "0000:43:00.0", "driver": "amdgpu", "power1.cap_w": 289.0}
CARD0 = {"device": "0000:03:00.0", "driver": "amdgpu", "power1.cap_w": 289.0}


def seed_004_report(monkeypatch: pytest.MonkeyPatch) -> Report:
    changes = diff_inventory(
        {"gpus": [CARD0, CARD1]}, {"gpus": [{**CARD0, "power1.cap_w": 250.0}]}, when=WHEN
    )
    return dataclasses.replace(
        BARE, telemetry=summarize(seed_004(monkeypatch)), changes=tuple(changes)
    )


WHEN = "after the reboot"


def test_seed_004_text_tells_the_step_on_both_cards_and_the_missing_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = render(seed_004_report(monkeypatch), "text")
    assert "Telemetry at the end (final 60 s):" in text
    assert "  GPU power 0000:03:00.0 ppt: 12 W → 302 W in 0.1 s, 0.3 s before the end" in text
    assert "  GPU power 0000:43:00.0 ppt: 12 W → 300 W in 0.1 s, 0.3 s before the end" in text
    assert "  ! card 0000:43:00.0 (amdgpu) missing after the reboot" in text
    assert "  - card 0000:03:00.0 power cap 289 W → 250 W after the reboot" in text
    assert "  0000:03:00.0 (amdgpu): junction 88 °C (max 104 °C), ppt 98 W (peak 302 W)" in text
    # the sections sit between the verdict and the list of other signatures
    assert text.index("Telemetry at the end") < text.index("Changes:")


def test_seed_004_markdown(monkeypatch: pytest.MonkeyPatch) -> None:
    md = render(seed_004_report(monkeypatch), "md")
    assert "**Telemetry at the end** (final 60 s)" in md
    assert "- GPU power 0000:03:00.0 ppt: 12 W → 302 W in 0.1 s, 0.3 s before the end" in md
    assert "- **card 0000:43:00.0 (amdgpu) missing after the reboot**" in md


def test_seed_003_memory_and_holders(tmp_path: Path) -> None:
    lines = telemetry_lines(summarize(seed_003(tmp_path)))
    assert (
        "MemAvailable 90.0 GiB → 0.3 GiB in 40 s, ending 19 s before the end; "
        "PSI memory full avg10 up to 78%"
    ) in lines
    holders = next(x for x in lines if x.startswith("top holders at the end: "))
    assert holders.startswith(
        "top holders at the end: llama-server 96.0 GiB (27.0 GiB GPU), llama-server 20.0 GiB, "
        "python3 1.0 GiB"
    )


def test_stalls_dumps_and_an_empty_boot() -> None:
    t = {
        "window_s": 60,
        "stalls": [
            {"path": "/sys/x/power1_input", "device": "0000:43:00.0", "blocked_s": 11.0},
            {"path": "/sys/old", "blocked_s": 2.0, "ended": True, "before_end_s": 3600.0},
        ],
        "sensor_errors": [
            {"path": "/sys/x/gpu_busy_percent", "device": "0000:03:00.0", "reason": "EIO"},
            {"path": "/sys/y", "device": "0000:03:00.0", "reason": "EPERM", "recovered": True},
        ],
        "devcoredumps": [
            {
                "event": "devcoredump_saved",
                "failing_device": "0000:43:00.0",
                "driver": "amdgpu",
                "saved_path": "/var/lib/kmsgd/devcoredump/a.bin",
                "size_bytes": 3 * 2**20,
                "before_end_s": 3.0,
            }
        ],
        "devices": [
            {"device": "0000:43:00.0", "driver": "amdgpu", "stale": True, "last_before_end_s": 13},
            {"device": "it8688.0", "driver": "it87", "sensors": {"fan1.fan_rpm": {"last": 900}}},
        ],
        "config": {"iommu_mode": "translated", "iommu_group_types": {"DMA-FQ": 3}},
    }
    assert telemetry_lines(t) == [
        "sensor read blocked: /sys/x/power1_input (0000:43:00.0) 11.0 s, still blocked at the end",
        "sensor failing at the end: /sys/x/gpu_busy_percent (0000:03:00.0): EIO",
        "GPU crash dump saved: 0000:43:00.0 (amdgpu), 3.0 MiB at "
        "/var/lib/kmsgd/devcoredump/a.bin, 3.0 s before the end",
        "0000:43:00.0 (amdgpu): no temperature or power readings; no record in the final 13 s",
        "IOMMU translated (DMA-FQ ×3)",  # seed 000: the GPUs' DMA went through the IOMMU
    ]
    assert telemetry_lines(summarize([])) == ["no records in this boot"]
    md = render(dataclasses.replace(BARE, telemetry=t), "md")
    assert r"- sensor read blocked: /sys/x/power1\_input" in md  # `_` is not emphasis


def test_report_without_telemetry_has_no_new_sections(monkeypatch: pytest.MonkeyPatch) -> None:
    for fmt in ("text", "md"):
        out = render(BARE, fmt)
        assert "Telemetry" not in out and "Changes" not in out
    doc = json.loads(render(seed_004_report(monkeypatch), "json"))
    assert len(doc["telemetry"]["steps"]) == 2 and doc["changes"][0]["what"] == "gpu_missing"


def test_partial_or_odd_telemetry_renders_without_raising() -> None:
    odd = {
        "steps": [{"device": "x"}],
        "memory": {"fall": {"from_bytes": "a"}, "mem_total_bytes": None},
        "top_holders": [{"comm": "a"}, "junk"],
        "devices": [{"device": "d", "sensors": {"t.temp_c": {"last": None}, "bad": 3}}],
        "device_events": "nope",
        "config": {"iommu_mode": "none", "iommu_group_types": []},
        "notes": ["this ring was written on another machine"],
    }
    lines = telemetry_lines(odd)
    assert lines[0] == "power x None: ? W → ? W in ? s, ? s before the end"
    assert "no memory samples" in lines
    assert lines[-1] == "this ring was written on another machine"
