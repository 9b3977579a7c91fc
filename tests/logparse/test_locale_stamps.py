"""dmesg -T in a CJK locale: the weekday one character, the month its number and 月/월
(strftime's %a %b in glibc's zh_CN, ja_JP and ko_KR); the stamp is read, not the text."""

from __future__ import annotations

import pytest

from kmsgd.logparse import LogFormat, parse_lines


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
