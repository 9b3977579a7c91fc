"""Signs of life, from rings written by the real recorder with a wound clock."""

from __future__ import annotations

from pathlib import Path

from scenario import Machine

from kmsgd.judge.liveness import liveness
from kmsgd.ring.reader import RingReader


def boot_entries(m: Machine, index: int) -> list:
    with RingReader(str(m.ring)) as r:
        return list(r.entries(m.boots[index].boot_id))


def test_regular_beats_to_a_sudden_end(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    b = m.boot()
    b.log("amdgpu 0000:03:00.0: amdgpu: DMUB hardware initialized", 6)
    b.run(30)
    b.die()
    live = liveness(boot_entries(m, 0))
    assert live.beats >= 29 and live.interval_s == 1.0
    assert live.regular_to_the_end and live.stop is None
    assert live.last_kernel is not None and "DMUB" in live.last_kernel.message
    assert live.silence_s is not None and 28 <= live.silence_s <= 31


def test_late_beats_before_the_end_are_counted(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    b = m.boot()
    b.run(20)
    for _ in range(4):  # the box thrashes: the loop gets CPU only every 6 s
        b.run(6, every=6)
    b.die()
    live = liveness(boot_entries(m, 0))
    assert live.late_final_beats == 4 and not live.regular_to_the_end


def test_clean_stop_and_clock_step(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    b = m.boot()
    b.run(5)
    b.clock.wall += 3600  # NTP steps the wall clock an hour ahead
    b.run(5)
    b.shutdown()
    live = liveness(boot_entries(m, 0))
    assert live.stop is not None and live.stop.shutting_down
    assert [str(s) for s in live.clock_steps] == ["wall clock stepped +3600 s"]


def test_a_recorder_restart_is_no_late_heartbeat() -> None:
    from kmsgd.ring.records import Boot, Entry, Heartbeat, Kind

    def beat(t: float) -> Entry:
        us = int(t * 1e6)
        return Entry(0, "b", us, Kind.HEARTBEAT, Heartbeat(us, us, us))

    boot = Boot("b" * 32, "6.8", "", 0, "0.1.0")
    entries = [Entry(0, "b", 0, Kind.BOOT, boot), *(beat(t) for t in range(1, 20))]
    entries += [Entry(0, "b", 25_000_000, Kind.BOOT, boot)]  # restarted after a 5 s pause
    entries += [beat(t) for t in range(26, 40)]
    live = liveness(entries)
    assert live.late_final_beats == 0 and live.regular_to_the_end
