"""printk's formatting, for tests: renders a C format string (lib/vsprintf.c) with Python
values, so a catalogue `Format` can be turned into the line the kernel would print.

Covers what the catalogue's formats use: flags, width and precision (`*` included), length
modifiers, %d %i %u %x %X %o %c %s %%, and the pointer extensions %p %px %pK %pS %ps %pV
(a nested (fmt, args) pair) %pGg (GFP flags) %pe, %*pbl (a bitmap list) and %*ph/%*phC (hex bytes). An argument left
out gets a plain value of its type; `...` in the arguments also means "a plain value".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_SPEC = re.compile(
    r"%(?P<flags>[-+ #0]*)(?P<width>\*|\d+)?(?:\.(?P<prec>\*|\d+))?"
    r"(?P<len>hh|h|ll|l|L|z|t|j|q)?(?P<conv>[diouxXcsp%])"
)
_PTR_EXT = re.compile(r"[a-zA-Z]+")

# plain values, by conversion: what a representative line shows where the pattern does not care
_PLAIN: dict[str, object] = {
    "d": 3,
    "i": 3,
    "u": 3,
    "x": 0x1F,
    "X": 0x1F,
    "o": 7,
    "c": "c",
    "s": "comm",
}
_PTR_PLAIN = {
    "": "00000000a1b2c3d4",
    "x": "ffff8881003c4000",
    "K": "00000000a1b2c3d4",
    "S": "func+0x1c/0x80",
    "s": "func",
    "B": "func+0x1c/0x80",
    "Bb": "func+0x1c/0x80",  # %pBb: a stack frame with the module's build id when built in
    "Gg": "GFP_KERNEL",
    "V": "message",
    "e": "-EIO",
    "bl": "0-3",
    "b": "f",
    "h": "51 40 2e c0 01 c2 c2 7c",  # %*ph: a small buffer as hex bytes (a WWPN)
    "hC": "51:40:2e:c0:01:c2:c2:7c",  # %*phC: the same, colon-separated
}


def render(fmt: str, args: Sequence[object] = ()) -> str:
    """`fmt` rendered with `args` (missing or `...` ones get plain values)."""
    out: list[str] = []
    it = iter(args)

    def take(default: object) -> object:
        v = next(it, ...)
        return default if v is ... else v

    i = 0
    while i < len(fmt):
        m = _SPEC.search(fmt, i)
        if m is None:
            out.append(fmt[i:])
            break
        out.append(fmt[i : m.start()])
        i = m.end()
        conv = m.group("conv")
        if conv == "%":
            out.append("%")
            continue
        width = m.group("width")
        if width == "*":
            width = str(take(4))
        prec = m.group("prec")
        if prec == "*":
            prec = str(take(8))
        flags = m.group("flags")
        if conv == "p":
            ext = _PTR_EXT.match(fmt, i)
            key = ""
            if ext is not None:
                # the kernel's extensions: the longest known one wins (pGg before pG)
                word = ext.group(0)
                for n in range(len(word), 0, -1):
                    if word[:n] in _PTR_PLAIN:
                        key = word[:n]
                        break
                i += len(key)
            v = take(_PTR_PLAIN[key])
            if key == "V" and isinstance(v, tuple):
                inner, inner_args = v
                v = render(str(inner), inner_args)
            out.append(str(v))
            continue
        v = take(_PLAIN[conv])
        pyspec = f"%{flags}{width or ''}{'.' + prec if prec else ''}{conv}"
        if conv in "diouxX" and isinstance(v, str):
            v = int(v, 0)
        if conv in "uxXo" and isinstance(v, int) and v < 0:
            v &= (1 << 64) - 1 if m.group("len") in ("ll", "l", "z", "j", "q") else 0xFFFFFFFF
        out.append(pyspec % v)
    return "".join(out)
