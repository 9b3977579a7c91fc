"""A next boot whose clock is hours off: written by the real recorder, judged through the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import make_proc
from daemon import kmsgd
from scenario import Machine

HOURS5 = 5 * 3600


def _last_boot(m: Machine, tmp_path: Path, *args: str) -> Any:
    proc = make_proc(tmp_path / "live-proc", m.boots[-1].boot_id)
    cfg = tmp_path / "kmsgd.toml"
    cfg.write_text(f'[kmsgd]\netc_root = "{m.etc}"\n')
    out = kmsgd(
        "last-boot", "--ring", str(m.ring), "--proc", str(proc), "--no-journal",
        "--config", str(cfg), *args,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_next_boot_hours_behind_is_no_quick_return(tmp_path: Path) -> None:
    """Before: downtime -17,960 s read as 'came back at once' (abrupt reset, medium)."""
    m = Machine(tmp_path)
    b = m.boot()
    b.run(60)
    b.die()
    m.boot(after_s=40 - HOURS5).run(5)
    doc = json.loads(_last_boot(m, tmp_path, "--format", "json"))
    tod = doc["time_of_death"]
    assert tod["downtime_s"] is None
    assert "before the last sign of life" in tod["clock_note"]
    assert doc["confidence"] == "low"
    text = _last_boot(m, tmp_path)
    assert "Clocks: the next boot's clock starts 4 h 59 min before" in text
    assert "downtime unknown" in text


def test_the_next_boots_ntp_step_corrects_the_downtime(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    b = m.boot()
    b.run(60)
    b.die()
    nxt = m.boot(after_s=40 - HOURS5)
    nxt.run(10)
    nxt.clock.wall += HOURS5  # NTP sets the clock 18 s into the next boot
    nxt.run(10)
    doc = json.loads(_last_boot(m, tmp_path, "--format", "json"))
    assert doc["outcome"] == "abrupt_reset_or_power_loss"
    assert 39 <= doc["time_of_death"]["downtime_s"] <= 42
    assert "stepped +18000 s" in doc["time_of_death"]["clock_note"]


def test_rtc_in_local_time_makes_a_long_gap_unknown(tmp_path: Path) -> None:
    """Before: an RTC an hour ahead turned a quick reset into 'hard freeze, stayed down'."""
    m = Machine(tmp_path)
    (m.etc / "adjtime").write_text("0.0 0 0.0\n0\nLOCAL\n")
    b = m.boot()
    b.run(60)
    b.die()
    m.boot(after_s=3600 + 30).run(5)
    doc = json.loads(_last_boot(m, tmp_path, "--format", "json"))
    assert doc["time_of_death"]["downtime_s"] is None
    assert "adjtime" in doc["time_of_death"]["clock_note"]
    assert doc["confidence"] == "low"


def test_suspend_within_a_boot_is_not_silence(tmp_path: Path) -> None:
    """A box that slept 20 minutes and then beat regularly to a clean shutdown."""
    m = Machine(tmp_path)
    b = m.boot()
    b.run(30)
    b.clock.wall += 1200
    b.clock.suspended += 1200
    b.run(30)
    b.shutdown()
    m.boot(after_s=20).run(3)
    doc = json.loads(_last_boot(m, tmp_path, "--format", "json"))
    assert doc["outcome"] == "clean_shutdown"
    assert doc["time_of_death"]["late_final_beats"] == 0
    assert "suspended 1200 s" in doc["time_of_death"]["clock_steps"]
