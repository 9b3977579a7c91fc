"""A constant prefix that a tool puts before every line it relays, found by its shape.

Build and CI tools, log collectors and consoles relay a machine's console or log with a
header of their own on each line: Packer's `2021/12/20 20:39:07 packer-builder-qemu plugin:
Qemu stdout: `, a Go glog header `I0409 12:04:12.853912    8843 vm_console.go:96] `, pdsh's
`node07: `, a CI runner's wall clock. No format names them all, but each keeps one shape
from line to line: the same words, with only its digits (clocks, counters, thread ids) and
hex ids changing. `Shape` is that shape, word by word; the stream (stream.py) learns it
from two lines in a row that no reader took and cuts it off the lines that have it. The
known formats are always tried first, so journal, syslog and dmesg lines, which share
shapes too, never get here. Pure string functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable

MAX_WORDS = 10  # a relay's header is a few words; the message follows
_HEAD = 160  # characters of a line that can hold the header
_WORD = re.compile(r"\S+")
# what changes from line to line within one header: numbers, and hex ids with a digit
_VARYING = re.compile(r"[0-9a-fA-F]*\d[0-9a-fA-F]*")

Shape = tuple[str, ...]


def _words(text: str) -> list[tuple[str, int]]:
    """(shape of the word, where the text after it starts) for the line's first words."""
    out: list[tuple[str, int]] = []
    for m in _WORD.finditer(text, 0, _HEAD):
        out.append((_VARYING.sub("9", m.group()), m.end() + 1))
        if len(out) == MAX_WORDS:
            break
    return out


def cut(text: str, shape: Shape) -> int | None:
    """Where the message starts after a header of `shape`, or None if the line lacks it."""
    words = _words(text)
    if len(words) < len(shape) or any(w[0] != s for w, s in zip(words, shape, strict=False)):
        return None
    return min(words[len(shape) - 1][1], len(text))


def learn(before: str, text: str, readable: Callable[[str], bool]) -> tuple[Shape, int, int] | None:
    """The header two unread lines share: the fewest leading words of one shape with a
    number among them after which either line reads as a log line (`readable`). Returns
    (shape, where the message starts in `before`, in `text`)."""
    a, b = _words(before), _words(text)
    shape: list[str] = []
    numbered = False
    for (wa, ea), (wb, eb) in zip(a, b, strict=False):
        if wa != wb:
            return None
        shape.append(wa)
        numbered = numbered or "9" in wa
        if numbered and (readable(text[eb:]) or readable(before[ea:])):
            return tuple(shape), min(ea, len(before)), min(eb, len(text))
    return None
