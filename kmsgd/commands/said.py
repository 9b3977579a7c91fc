"""What a command core gives its click edge (kmsgd/cli.py) to print."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Said:
    """`err`: lines for stderr, printed first; `out`: stdout as it is (text, or the bytes of
    `last-boot --format export`)."""

    out: str | bytes = ""
    err: tuple[str, ...] = ()
