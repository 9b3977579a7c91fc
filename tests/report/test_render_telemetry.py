"""The report's telemetry and changes sections in text and Markdown: the sentences seeds 003
and 004 need, and no trace of them in a report that has no telemetry."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from telemetry_boots import BOOT_WALL, Ring, seed_003, seed_004

from kmsgd.judge.changes import ConfigFacts, diff_inventory
from kmsgd.judge.telemetry import summarize
from kmsgd.judge.telemetry_model import (
    CrashDump,
    DeviceSummary,
    SensorError,
    SensorStats,
    Stall,
    Telemetry,
)
from kmsgd.report import render_json
from kmsgd.report.model import Report
from kmsgd.report.render import render
from kmsgd.report.render_ring import telemetry_lines
from kmsgd.ring.events import DumpEvent, EventName
from kmsgd.ring.inventory import Inventory
from kmsgd.ring.records import Kind
from kmsgd.ring.samples import DeviceSample
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
        Inventory.from_payload({"gpus": [CARD0, CARD1]}),
        Inventory.from_payload({"gpus": [{**CARD0, "power1.cap_w": 250.0}]}),
        when=WHEN,
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
    saved = DumpEvent(
        EventName.DEVCOREDUMP_SAVED, "devcd1", "0000:43:00.0", 0,
        "/var/lib/kmsgd/devcoredump/a.bin", 3 * 2**20, False, "amdgpu",
    )  # fmt: skip
    t = Telemetry(
        END,
        stalls=(
            Stall("/sys/x/power1_input", "0000:43:00.0", 11.0, False, END, 0.0),
            Stall("/sys/old", "", 2.0, True, END - 3_600_000_000, 3600.0),
        ),
        sensor_errors=(
            SensorError("/sys/x/gpu_busy_percent", "0000:03:00.0", 1, False, 5.0, "EIO"),
            SensorError("/sys/y", "0000:03:00.0", 1, True, 9.0, "EPERM"),
        ),
        devcoredumps=(CrashDump(END - 3_000_000, saved, 3.0),),
        devices=(
            DeviceSummary("0000:43:00.0", "amdgpu", "amdgpu", END, 13, True, True),
            DeviceSummary(
                "it8688.0",
                "it87",
                "hwmon",
                END,
                0.0,
                False,
                False,
                {"fan1.fan_rpm": SensorStats(900)},
            ),
        ),
        config=ConfigFacts(iommu_mode="translated", iommu_group_types={"DMA-FQ": 3}),
    )
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


END = BOOT_WALL + 60_000_000


def test_report_without_telemetry_has_no_new_sections(monkeypatch: pytest.MonkeyPatch) -> None:
    for fmt in ("text", "md"):
        out = render(BARE, fmt)
        assert "Telemetry" not in out and "Changes" not in out
    doc = json.loads(render(seed_004_report(monkeypatch), "json"))
    assert len(doc["telemetry"]["steps"]) == 2 and doc["changes"][0]["what"] == "gpu_missing"


def test_garbage_ring_payloads_give_a_sane_summary_and_its_lines() -> None:
    """Broken sensor records cost their own line, never the report: they are skipped and
    counted where the summary is made, and what is left renders like any other boot."""
    ring = Ring()
    mean = DeviceSample("hwmon", "x", "", 1_000_000, {"ppt.power_w": 5.0}, raw_ms=(-900, -800))
    ring.add(Kind.SAMPLE, mean.to_payload(), 1_000_000)  # raw_ms but no raw reads: the mean
    for bad in (
        {"sample": "device", "device": "x", "values": {"t.temp_c": "hot"}},
        {"sample": "memory", "mem_total_bytes": None, "mem_available_bytes": "lots"},
        {"sample": "procs", "top": ["junk"]},
        {"sample": "device", "device": "d", "values": {"t.temp_c": "nan", "bad": 3}},
        [1, 2],
    ):
        ring.add(Kind.SAMPLE, bad, 2_000_000)
    ring.add(Kind.EVENT, {"event": "devcoredump_saved", "size_bytes": "big"}, 2_000_000)
    ring.add(Kind.DEVICE, "nope", 2_000_000)
    ring.add(Kind.INVENTORY, {"iommu_group_types": [], "gpus": [{"no": "device"}]}, 2_000_000)
    t = summarize(ring.entries)  # the 5 W record once raised ValueError (zip, strict)
    assert t.skipped_records == 6 and t.memory is None and t.top_holders == ()
    assert [d.device for d in t.devices] == ["d", "x"]
    assert list(t.devices[0].sensors) == ["bad"]  # NaN is no reading
    t = dataclasses.replace(t, notes=("this ring was written on another machine",))
    assert telemetry_lines(t) == [
        "x (hwmon): ppt 5 W (max 5 W)",
        "IOMMU none",
        "this ring was written on another machine",
        "6 malformed telemetry records skipped",
    ]
    json.dumps(render_json.telemetry_json(t), allow_nan=False)
