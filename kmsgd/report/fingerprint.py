"""A short, stable name for a failure, for deduplicating tickets.

Hash of outcome + primary tag + the primary line's template (numbers, addresses, PIDs and
process names normalised) + driver. The same failure on another boot or machine gives the
same value; different failures give different ones.
"""

from __future__ import annotations

import hashlib
import re

_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(rx), rep)
    for rx, rep in (
        (r"Killed process \d+ \([^)]*\)", "Killed process <pid> (<comm>)"),
        (r"pid=\d+, name=[^,]*", "pid=<pid>, name=<comm>"),
        (r"\btask \S+:\d+\b", "task <comm>"),
        (r"\[[^\]\s]+:\d+\]", "[<comm>]"),
        (r"\b[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?\b", "<pci>"),
        (r"\b(?:[0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}\b", "<mac>"),
        (r"\b0x[0-9a-fA-F]+\b", "<hex>"),
        (r"\b(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{8,}\b", "<hex>"),
        (r"\bsd[a-z]+", "sd<x>"),
        (r"\d+", "<n>"),
        (r"\s+", " "),
    )
)
_DRIVER = re.compile(
    r"^(?:\[drm:\S+ \[(\w+)\]\]|NVRM\b|(\w[\w-]*) [0-9a-f]{4}:|(\w[\w-]*) \w+\d: )"
)


def template(message: str) -> str:
    """The line with everything that varies between occurrences replaced by placeholders."""
    for rx, rep in _RULES:
        message = rx.sub(rep, message)
    return message.strip()


def driver_of(message: str, fallback: str = "") -> str:
    """The driver a kernel line comes from ("amdgpu 0000:03:00.0: …" → amdgpu)."""
    m = _DRIVER.match(message)
    if m is None:
        return fallback
    if m.group(0).startswith("NVRM"):
        return "nvidia"
    return m.group(1) or m.group(2) or m.group(3) or fallback


def fingerprint(outcome: str, tag: str = "", message: str = "", driver: str = "") -> str:
    """16 hex digits; `tag`/`message` empty when there is no culprit."""
    key = "|".join(("kmsgd.fp/1", outcome, tag, template(message) if message else "", driver))
    return hashlib.sha256(key.encode()).hexdigest()[:16]
