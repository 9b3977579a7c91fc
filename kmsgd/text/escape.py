"""Control characters shown, never sent: one sanitizer for every text and Markdown renderer.

util-linux `dmesg` prints a character it cannot print as the hex of its bytes, `\\x1b`
(sys-utils/dmesg.c, `safe_fwrite`); kmsgd does the same for every C0 control, DEL and every C1
control (U+0080-U+009F: an 8-bit CSI is as good as ESC [ to some terminals). `dmesg` lets the
whitespace controls through; kmsgd lets through only what the renderer names (`keep`), because
a carriage return rewrites the line it is on and a newline inside a field forges a line.
The kernel's own escaping (`\\xNN` for every byte below 0x20, DEL and above, printk.c) is
undone when a record is read, so a text shows what the kernel escaped in the same form again.
JSON needs none of this: `json.dumps` escapes C0 itself, and `json_text` escapes DEL and C1.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any, TypeVar

_CONTROL = "\x00-\x1f\x7f-\x9f"
_PATTERNS: dict[str, re.Pattern[str]] = {}
_JSON_RAW = re.compile("[\x7f-\x9f]")
T = TypeVar("T")


def _pattern(keep: str) -> re.Pattern[str]:
    rx = _PATTERNS.get(keep)
    if rx is None:
        allowed = "".join(re.escape(c) for c in keep)
        rx = _PATTERNS[keep] = re.compile(
            f"(?![{allowed}])[{_CONTROL}]" if allowed else f"[{_CONTROL}]"
        )
    return rx


def _hex(m: re.Match[str]) -> str:
    return "".join(f"\\x{b:02x}" for b in m.group(0).encode("utf-8"))


def escape(text: str, keep: str = "") -> str:
    """`text` with every control character but those in `keep` written as `\\xNN` per byte."""
    return _pattern(keep).sub(_hex, text)


def json_text(dumped: str) -> str:
    """JSON text (`json.dumps(..., ensure_ascii=False)`) with DEL and C1 as `\\u00NN`: the same
    values, decoded, and nothing a terminal acts on. Those characters occur only in strings."""
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group(0)):04x}", dumped)


def escape_tree(value: T) -> T:
    """A copy of a frozen dataclass tree (tuples, lists, mappings, dataclasses) with every
    string escaped, newlines included: what a text renderer then lays out around the values
    cannot forge a line or reach the terminal, and its own layout and colours stay."""
    return _tree(value)  # type: ignore[no-any-return]


def _tree(value: Any) -> Any:
    if type(value) is str:  # an enum member (StrEnum) is vocabulary, not outside text
        return escape(value)
    if isinstance(value, tuple):
        items = [_tree(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if isinstance(value, list):
        return [_tree(v) for v in value]
    if isinstance(value, Mapping):
        return {_tree(k): _tree(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        return dataclasses.replace(
            value, **{f.name: _tree(getattr(value, f.name)) for f in fields if f.init}
        )
    return value


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"
