"""The three incidents kmsgd was made for (../shared/seeds/), end to end through the ring.

Each story (tests/seeds.py) is played through the real recorder with a wound clock; sensor
records come from the sensor code's own payload types and inventories from `read_inventory`
on fake sysfs trees. The report must say what that story's author needed to hear
(seeds/README.md).
"""

from __future__ import annotations

import json
from pathlib import Path

from seeds import CARDS, GIB, judge, play_000, play_003, play_004

from kmsgd.report import render_json
from kmsgd.report.render import render


def test_seed_004_psu_trip(tmp_path: Path) -> None:
    """Both GPUs jump from idle to load and the box loses power at once; card1 is gone after."""
    m = play_004(tmp_path)
    rep = judge(m)
    assert rep.outcome == "abrupt_reset_or_power_loss"
    assert rep.telemetry is not None
    steps = {s.device: s for s in rep.telemetry.steps}
    assert set(steps) == set(CARDS)
    assert all(s.from_w == 12.0 and s.to_w >= 298 for s in steps.values())
    missing = [c for c in rep.changes if c.what == "gpu_missing"]
    assert [c.device for c in missing] == ["0000:43:00.0"]
    assert 40 <= rep.time_of_death.ring.downtime_s <= 43  # type: ignore[union-attr,operator]
    text = render(rep, "text")
    assert "12 W → 30" in text and "missing after the reboot" in text


def test_seed_003_memory_exhaustion_hang(tmp_path: Path) -> None:
    """Two model servers map the same 115 GB model: memory runs out, the box stops answering."""
    m = play_003(tmp_path)
    rep = judge(m)
    assert rep.outcome == "hang_memory_exhaustion"
    doc = render_json.report_json(rep)
    top = doc["telemetry"]["top_holders"][0]
    assert top["comm"] == "llama-server" and top["gpu_vram_bytes"] == 27 * GIB
    text = render(rep, "text")
    assert "OOM killer fired 3×" in text and "llama-server 96.0 GiB (27.0 GiB GPU)" in text
    assert "MemAvailable" in text
    assert doc["time_of_death"]["downtime_s"] >= 350
    json.dumps(doc)


def test_seed_000_hard_freeze_with_noise_told_apart(tmp_path: Path) -> None:
    """A healthy 7-hour boot, then the amdgpu chain and 2.5 minutes of silence until death."""
    m = play_000(tmp_path)
    rep = judge(m)
    assert rep.outcome == "hard_freeze"
    assert rep.primary is not None and rep.primary.tag == "amdgpu_smu_timeout"
    hogs = [s for s in rep.signatures if "workqueue" in s.tag]
    assert hogs and all(s.noise for s in hogs)
    ring = rep.time_of_death.ring  # type: ignore[union-attr]
    assert 148 <= ring.silence_before_death_s <= 156  # type: ignore[union-attr,operator]
    assert "last kernel line 15" in render(rep, "text")
