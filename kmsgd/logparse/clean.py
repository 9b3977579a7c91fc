"""Ticket hygiene: what people wrap around a log when they paste it.

Quoting (`> `), line numbers (`cat -n`, `grep -n`, editor gutters), indentation, shell
prompts and commands, journalctl's `-- Boot … --` separators. Pure string functions.
"""

from __future__ import annotations

import re

# a gutter's number is not the hours of a time ("12:09:20 amdgpu …")
_DECORATION = re.compile(r"(?:\s*>\s?|\s*\d{1,7}(?!:\d\d:\d\d)(?:\t|: ?|\s*\|\s?|\s+(?=[\[<])))+")
_BOOT_SEP = re.compile(r"-- Boot ([0-9a-f]{32}) --")
_REBOOT_SEP = re.compile(r"-- Reboot --|={3,}\s*boot\b.*={3,}\s*", re.IGNORECASE)
_JOURNAL_NOTE = re.compile(r"-- (?:Logs begin at|Journal begins at|No entries|Logs end at)\b.*--")
_PROMPT = re.compile(r"(?:\(\S+\)\s*)?(?:[\w.-]+@[\w.-]+(?::[^\s$#]*)?\s?[$#]|[$#%]|❯|>>>)\s+\S")
_COMMANDS = (
    "journalctl",
    "dmesg",
    "grep",
    "egrep",
    "zgrep",
    "rg",
    "cat",
    "tail",
    "head",
    "less",
    "awk",
    "sed",
    "sudo",
    "systemctl",
    "nvidia-smi",
    "lspci",
    "echo",
    "sort",
    "uniq",
    "wc",
)
_COMMAND = re.compile(r"(?:sudo\s+)?(?:" + "|".join(_COMMANDS) + r")(?:\s+-{1,2}\w|\s+['\"/|])")


def strip_decoration(line: str) -> str:
    """Remove quoting and a line-number gutter from the start; "" when nothing is left."""
    m = _DECORATION.match(line)
    if m is None or m.end() == 0:
        return line.strip()
    return line[m.end() :].strip()


def boot_separator(line: str) -> tuple[bool, str]:
    """(is a boot separator, its boot id or "") for journalctl's and common hand-made markers."""
    m = _BOOT_SEP.fullmatch(line)
    if m is not None:
        return True, m.group(1)
    return _REBOOT_SEP.fullmatch(line) is not None, ""


def journal_note(line: str) -> bool:
    """journalctl's own `-- Logs begin at … --` style notes: neither log nor evidence."""
    return _JOURNAL_NOTE.fullmatch(line) is not None


# a dmesg stamp after a prompt: on a serial console the kernel prints its record over
# whatever is being typed, so the record starts mid-line ("root@lede:/# /etc/init[   90.3]")
_STAMP_IN_PROMPT = re.compile(r"\[\s*\d{1,12}\.\d{6}\] \S")


def record_after_prompt(line: str) -> int | None:
    """Where a kernel record printed into a shell prompt line starts, if one is there."""
    m = _PROMPT.match(line)
    if m is None:
        return None
    found = _STAMP_IN_PROMPT.search(line, m.end() - 1)
    return found.start() if found is not None else None


def is_command(line: str) -> bool:
    """A shell prompt or a diagnostic command someone ran: never evidence (in docs/incidents.md's
    amdgpu freeze, `journalctl … | grep -c 'systemd-shutdown'` matched its own pattern)."""
    return _PROMPT.match(line) is not None or _COMMAND.match(line) is not None
