"""CRC-valid frames a foreign or damaged writer could leave: out-of-range times, 400-digit
numbers, deeply nested payloads. Each is a damaged record (or skipped as a torn frame is);
the records around it are kept and every command still answers."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from kmsgd.ring.lines import json_line, text_line
from kmsgd.ring.reader import RingReader
from kmsgd.ring.records import Damaged, Heartbeat, KernelRecord, Kind
from kmsgd.ring.samples import DeviceSample
from kmsgd.ring.writer import RingWriter

BOOT = uuid.uuid4().bytes
WALL = 1_764_400_000_000_000


def ring_with(tmp_path: Path, *frames: tuple[Kind, bytes, int]) -> Path:
    """A ring of one boot: a kernel line, the hostile frames, a kernel line. The writer
    frames any bytes with a valid CRC, as a foreign writer would."""
    path = tmp_path / "ring"
    w = RingWriter(str(path), size=1 << 20)
    w.add(Kind.KERNEL, BOOT, WALL, b"6,1,1000,-;before\n")
    for kind, payload, wall in frames:
        w.add(kind, BOOT, wall, payload)
    w.add(Kind.KERNEL, BOOT, WALL + 2, b"6,3,3000,-;after\n")
    w.commit()
    w.write_header()
    w.close()
    return path


def entries(path: Path) -> list[object]:
    with RingReader(str(path)) as r:
        got = list(r.entries(BOOT.hex()))
        for e in got:
            text_line(e)
            json.loads(json_line(e))
        return [e.data for e in got]


def messages(data: list[object]) -> list[str]:
    return [d.message for d in data if isinstance(d, KernelRecord)]


def test_a_deeply_nested_payload_is_a_damaged_record(tmp_path: Path) -> None:
    deep = b'{"sensor":"card0","power_w":' + b"[" * 20_000 + b"]" * 20_000 + b"}"
    data = entries(ring_with(tmp_path, (Kind.SAMPLE, deep, WALL + 1)))
    assert messages(data) == ["before", "after"]
    (bad,) = [d for d in data if isinstance(d, Damaged)]
    assert "nested deeper" in bad.error and bad.size == len(deep)


def test_brackets_inside_strings_are_not_depth(tmp_path: Path) -> None:
    sample = DeviceSample("hwmon", "[" * 100, "", 1, {"power_w": 1.0})
    text = json.dumps(sample.to_payload()).encode()
    data = entries(ring_with(tmp_path, (Kind.SAMPLE, text, WALL + 1)))
    assert sample in data


def test_a_frame_time_no_clock_can_show_is_skipped_and_the_rest_kept(tmp_path: Path) -> None:
    path = ring_with(
        tmp_path,
        (Kind.KERNEL, b"6,2,2000,-;from the far future\n", 2**63 - 1),
        (Kind.KERNEL, b"6,2,2000,-;from before the epoch\n", -(2**63)),
    )
    assert messages(entries(path)) == ["before", "after"]


def test_a_kernel_record_with_a_400_digit_stamp_is_damaged(tmp_path: Path) -> None:
    huge = b"9" * 400
    data = entries(ring_with(tmp_path, (Kind.KERNEL, b"6,2,%s,-;x\n" % huge, WALL + 1)))
    assert messages(data) == ["before", "after"]
    assert any(isinstance(d, Damaged) and "unparsable" in d.error for d in data)


def test_a_heartbeat_with_times_out_of_range_is_damaged(tmp_path: Path) -> None:
    bad = json.dumps({"wall_us": 10**400, "mono_us": 1, "boottime_us": -1}).encode()
    data = entries(ring_with(tmp_path, (Kind.HEARTBEAT, bad, WALL + 1)))
    assert not any(isinstance(d, Heartbeat) for d in data)
    assert any(isinstance(d, Damaged) and "out of range" in d.error for d in data)


def test_a_sample_with_numbers_no_reader_can_use_is_damaged(tmp_path: Path) -> None:
    """float(10**400) is an OverflowError and inf would make the JSON report invalid."""
    bad = [
        b'{"sample":"device","sensor":"card0","power_w":%s}' % v
        for v in (b"9" * 400, b"1e400", b"NaN", b"-Infinity")
    ]
    data = entries(ring_with(tmp_path, *((Kind.SAMPLE, b, WALL + 1) for b in bad)))
    assert messages(data) == ["before", "after"]
    errors = [d.error for d in data if isinstance(d, Damaged)]
    assert len(errors) == 4 and all("out of range" in e for e in errors)


def test_a_pstore_line_with_a_400_digit_stamp_has_no_stamp() -> None:
    from kmsgd.ring.pstore import parse_line

    rec = parse_line("<3>[" + "9" * 400 + ".000000] Kernel panic - not syncing: x")
    assert rec.ts_usec is None or rec.ts_usec < 10**18
