"""The output sanitizer alone: what `dmesg` escapes, kmsgd escapes the same way."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import NamedTuple

import pytest

from kmsgd.text.escape import escape, escape_tree, json_text
from kmsgd.types import Outcome

# Terminal control sequences an unprivileged user can put in a kernel line (a process name
# in an OOM or segfault line): each must reach the output as text, never as a control.
SEQUENCES = {
    "OSC 52 clipboard write": "\x1b]52;c;ZWNobyBwd25lZA==\x07",
    "OSC window title": "\x1b]0;pwned\x07",
    "DCS": "\x1bP1$r0m\x1b\\",
    "CSI clear screen": "\x1b[2J\x1b[H",
    "8-bit CSI (C1)": "\x9b31m",
    "BEL": "\x07",
    "BS": "a\x08b",
    "DEL": "\x7f",
    "CR": "ok\rforged",
    "NUL": "a\x00b",
}


@pytest.mark.parametrize("seq", SEQUENCES.values(), ids=SEQUENCES.keys())
def test_no_control_character_is_left(seq: str) -> None:
    out = escape(seq)
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in out)


def test_escapes_are_dmesg_s_hex_of_each_byte() -> None:
    # util-linux dmesg prints a non-printable character as the hex of its UTF-8 bytes
    assert escape("\x1b[31m") == "\\x1b[31m"
    assert escape("\x9b") == "\\xc2\\x9b"
    assert escape("\x7f\x00") == "\\x7f\\x00"


def test_printable_text_and_what_the_renderer_keeps_stay() -> None:
    text = "GPU 0000:03:00.0 fell off the bus: é ▶ \\x1b stays as typed\tand\n"
    assert escape(text, keep="\t\n") == text
    assert escape("a\nb") == "a\\x0ab"  # a newline inside a value would forge a line


def test_json_text_is_the_same_json_with_no_raw_c1_or_del() -> None:
    value = {"m": "a\x1b\x9b\x7fb é"}
    dumped = json.dumps(value, ensure_ascii=False)
    out = json_text(dumped)
    assert json.loads(out) == value
    assert not any(0x7F <= ord(c) <= 0x9F or ord(c) < 0x20 for c in out)


class Pair(NamedTuple):
    a: str
    n: int


@dataclass(frozen=True, slots=True)
class Node:
    text: str
    outcome: Outcome
    pairs: tuple[Pair, ...]
    more: dict[str, list[str]]


def test_escape_tree_escapes_every_string_and_keeps_the_shape() -> None:
    node = Node("x\x1by", Outcome.HARD_FREEZE, (Pair("p\n", 1),), {"k\x07": ["v\r"]})
    out = escape_tree(node)
    assert out == Node("x\\x1by", Outcome.HARD_FREEZE, (Pair("p\\x0a", 1),), {"k\\x07": ["v\\x0d"]})
    assert type(out.pairs[0]) is Pair and out.outcome is Outcome.HARD_FREEZE
