"""Pastes corpus batches 7 and 8 showed unread: dmesg -T in a CJK locale (the weekday one
character, the month its number and 月/월: strftime's %a %b in glibc's zh_CN, ja_JP and
ko_KR), and programs' console lines with no stamp (" sd-umoun[2406]: …")."""

from __future__ import annotations

import pytest

from kmsgd.logparse import Line, LogFormat, Origin, parse_lines


@pytest.mark.parametrize(
    "stamp",
    ["[三 9月  6 11:00:27 2017]", "[水  9月  6 11:00:27 2017]", "[수 9월  6 11:00:27 2017]"],
)
def test_a_cjk_dmesg_T_stamp_is_a_line_prefix(stamp: str) -> None:
    (line,) = parse_lines([f"{stamp} [drm] GPU HANG: ecode 9:0:0x85dffffb, in chameleon [1296]"])
    assert line.fmt is LogFormat.DMESG_CTIME
    assert line.message == "[drm] GPU HANG: ecode 9:0:0x85dffffb, in chameleon [1296]"


def test_a_month_number_out_of_range_is_no_stamp() -> None:
    (line,) = parse_lines(["[三 13月  6 11:00:27 2017] text"])
    assert line.fmt is not LogFormat.DMESG_CTIME


def test_a_programs_console_line_without_a_stamp_is_that_programs() -> None:
    lines = list(
        parse_lines(
            [
                " sd-umoun[2406]: Failed to unmount /oldroot: Device or resource busy",
                # kernel words in a program's line stay the program's
                " python3[12]: BUG: soft lockup - CPU#1 stuck for 23s! [python3:12]",
            ]
        )
    )
    assert all(isinstance(e, Line) and e.origin is Origin.USERSPACE for e in lines), lines
    assert [e.message.split("[")[0] for e in lines if isinstance(e, Line)] == [
        "sd-umoun",
        "python3",
    ]


def test_prose_with_a_bracket_is_no_program_line() -> None:
    lines = [e for e in parse_lines(["see the log[1]: it is long"]) if isinstance(e, Line)]
    assert all(e.origin is not Origin.USERSPACE for e in lines)
