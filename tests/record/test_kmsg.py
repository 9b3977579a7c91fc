"""The /dev/kmsg record format: every field, escapes, continuation lines, malformed input."""

from __future__ import annotations

import os
from pathlib import Path

from kmsgd.record.kmsg import KmsgReader, Overrun
from kmsgd.ring.records import parse_record, peek, unescape


def test_parses_every_field_and_continuation_lines() -> None:
    raw = b"6,193,294058,-;acpi PNP0A08:00: _OSC: OS now controls\n SUBSYSTEM=acpi\n DEVICE=+acpi:PNP0A08:00\n"
    rec = parse_record(raw, wall_us=42)
    assert rec is not None
    assert (rec.level, rec.facility, rec.seq, rec.ts_usec, rec.flags) == (6, 0, 193, 294058, "-")
    assert rec.message == "acpi PNP0A08:00: _OSC: OS now controls"
    assert (rec.subsystem, rec.device, rec.wall_us) == ("acpi", "+acpi:PNP0A08:00", 42)


def test_userspace_facility_and_level_split_from_priority() -> None:
    rec = parse_record(b"12,5,7,-;hello\n")
    assert rec is not None and (rec.facility, rec.level) == (1, 4)


def test_escapes_are_decoded_including_utf8() -> None:
    rec = parse_record(b"4,1,2,-;tab:\\x09 backslash:\\x5c utf8:\\xc3\\xa9\n")
    assert rec is not None and rec.message == "tab:\t backslash:\\ utf8:é"
    assert unescape(b"bad utf8 \\xff end") == "bad utf8 \ufffd end"


def test_unknown_extra_header_fields_are_ignored_and_caller_kept() -> None:
    rec = parse_record(b"3,9,100,c,caller=T123,future=x;amdgpu: fragment\n")
    assert rec is not None
    assert (rec.flags, rec.caller, rec.message) == ("c", "T123", "amdgpu: fragment")


def test_malformed_records_give_none_not_an_exception() -> None:
    for raw in (b"", b"no header here\n", b"x,y,z,-;text\n", b"6,1;short\n", b"\xff\xfe;\n"):
        assert parse_record(raw) is None
    assert peek(b"garbage") == (-1, 7)
    assert peek(b"3,77,1,-;x\n") == (77, 3)


def test_stream_source_splits_records_and_keeps_continuations(tmp_path: Path) -> None:
    path = tmp_path / "kmsg"
    path.write_bytes(
        b"6,1,10,-;first\n SUBSYSTEM=pci\n DEVICE=+pci:0000:03:00.0\n4,2,20,-;second\n"
    )
    reader = KmsgReader(str(path))
    got = [r for r in reader.read_available() if not isinstance(r, Overrun)]
    # The last record is held back until the writer goes quiet (it may still get KEY lines).
    got += [r for r in reader.read_available() if not isinstance(r, Overrun)]
    reader.close()
    recs = [parse_record(r) for r in got]
    assert [r.message for r in recs if r] == ["first", "second"]
    assert recs[0] is not None and recs[0].device == "+pci:0000:03:00.0"


def test_fifo_source_follows_a_writer(tmp_path: Path) -> None:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    reader = KmsgReader(str(path))
    wfd = os.open(path, os.O_WRONLY)
    os.write(wfd, b"6,1,10,-;one\n6,2,11,-;two\n")
    reader.wait(1.0)
    got = [r for r in reader.read_available() if isinstance(r, bytes)]
    got += [r for r in reader.read_available() if isinstance(r, bytes)]
    os.close(wfd)
    reader.close()
    assert [peek(r)[0] for r in got] == [1, 2]


def test_real_kmsg_read_returns_whole_records() -> None:
    if not os.access("/dev/kmsg", os.R_OK):
        import pytest

        pytest.skip("/dev/kmsg not readable here (needs root or CAP_SYSLOG)")
    reader = KmsgReader("/dev/kmsg")
    records = [r for r in reader.read_available() if isinstance(r, bytes)]
    reader.close()
    assert records, "the kernel buffer is never empty on a booted machine"
    parsed = [parse_record(r) for r in records]
    assert all(p is not None for p in parsed)
    seqs = [p.seq for p in parsed if p]
    assert seqs == sorted(seqs)
