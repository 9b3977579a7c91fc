"""A dmesg paste whose copy began one character late: the first line has lost its opening
bracket ("407819.286867] BUG: …") and is still that record, stamp and message apart."""

from __future__ import annotations

from kmsgd.logparse import Line, LogFormat, parse_lines


def _lines(*text: str) -> list[Line]:
    return [ev for ev in parse_lines(list(text)) if isinstance(ev, Line)]


def test_a_first_line_without_its_opening_bracket_is_a_dmesg_record() -> None:
    first, second = _lines(
        "407819.286867] BUG: Bad page state in process zabbix_agentd  pfn:46c479",
        "[407819.294388] page dumped because: nonzero _count",
    )
    assert first.fmt is LogFormat.DMESG
    assert first.message == "BUG: Bad page state in process zabbix_agentd  pfn:46c479"
    assert first.ts_usec == 407819286867
    assert second.ts_usec == 407819294388


def test_a_number_and_a_bracket_that_are_not_printk_s_stamp_stay_text() -> None:
    # printk's stamp always has six decimals; fewer is some other text
    (line,) = _lines("4078.28] not a stamp")
    assert line.fmt is not LogFormat.DMESG
