"""`--redact`: replace what identifies a machine or a person with stable placeholders.

Applied to the rendered report (text, Markdown or JSON alike), so nothing that reaches the
output escapes it. The same value always gets the same placeholder within one report
(`<host-1>`, `<ip-2>`…), so a reader can still follow "the same address twice". Boot ids are
kept: they identify a boot, not a machine, and tickets need them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_IPV4 = r"(?<![\w.])(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}(?![\w.])"
_H = r"[0-9a-fA-F]{1,4}"
_IPV6 = (
    rf"(?<![\w:])(?:(?:{_H}:){{7}}{_H}|(?:{_H}:){{1,7}}:(?:{_H}(?::{_H}){{0,6}})?"
    rf"|::(?:{_H}(?::{_H}){{0,6}}))(?:%\w+)?(?![\w:])"
)
_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("email", re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")),
    (
        "uuid",
        re.compile(
            r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
            r"[0-9a-fA-F]{12}\b"
        ),
    ),
    ("mac", re.compile(r"(?<![\w:-])(?:[0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}(?![\w:-])")),
    ("ip", re.compile(_IPV6)),
    ("ip", re.compile(_IPV4)),
)
# serial numbers: the value after a label (usb "SerialNumber:", DMI, smartctl, nvme-cli)
_SERIAL = re.compile(
    r"((?:[Ss]erial ?[Nn]umber|SerialNumber|[Ss]erial|S/N|serial_number|SN)\s*[:=]\s*)"
    r"([\w./-]{4,})"
)
_USER_PATH = re.compile(r"(/home/|/Users/|/var/home/|/run/user/|/u/)([^/\s'\"]+)")
_USER_FIELD = re.compile(
    r"(\b(?:user|USER|LOGNAME|SUDO_USER|ruser)=|\buid=\d+\(|\bfor (?:user |invalid user )?"
    r")([A-Za-z_][\w.-]*)(?=\(uid=|\s+from\b|[\s;),]|$)",
    re.MULTILINE,
)
_SUDO_USER = re.compile(r"(?<![\w.-])([A-Za-z_][\w.-]*)(?= : TTY=)")  # sudo's "alice : TTY=…"
_NOT_HOSTS = {"", "localhost", "localhost.localdomain", "(none)", "kernel", "-"}
_HOSTNAME_SET = re.compile(r"Hostname set to <([^>]+)>|Changed host name to '([^']+)'")


def hostnames_in(text: str) -> list[str]:
    """Hostnames a log line announces (systemd's "Hostname set to <name>")."""
    m = _HOSTNAME_SET.search(text)
    return [h for h in (m.group(1), m.group(2)) if h] if m else []


class Redactor:
    """Stable placeholders per value; `hosts` are names known from the log's host column."""

    def __init__(self, hosts: Iterable[str] = (), keep: Iterable[str] = ()) -> None:
        self._map: dict[tuple[str, str], str] = {}
        self._count: dict[str, int] = {}
        self._keep = {k.lower().replace("-", "") for k in keep if k}
        names = sorted({h for h in hosts if h not in _NOT_HOSTS}, key=len, reverse=True)
        short = {h.split(".")[0] for h in names if "." in h} - _NOT_HOSTS
        names += sorted(short - set(names), key=len, reverse=True)
        self._hosts = (
            re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(h) for h in names) + r")(?![\w-])")
            if names
            else None
        )

    def _placeholder(self, kind: str, value: str) -> str:
        key = (kind, value.lower())
        got = self._map.get(key)
        if got is None:
            self._count[kind] = self._count.get(kind, 0) + 1
            got = self._map[key] = f"<{kind}-{self._count[kind]}>"
        return got

    def redact(self, text: str) -> str:
        """The text with every identifier replaced."""
        if self._hosts is not None:
            text = self._hosts.sub(lambda m: self._placeholder("host", m.group(0)), text)
        for kind, rx in _KINDS:
            text = rx.sub(lambda m, k=kind: self._sub(k, m.group(0)), text)  # type: ignore[misc]
        text = _SERIAL.sub(lambda m: m.group(1) + self._placeholder("serial", m.group(2)), text)
        text = _USER_PATH.sub(lambda m: m.group(1) + self._placeholder("user", m.group(2)), text)
        text = _SUDO_USER.sub(lambda m: self._placeholder("user", m.group(1)), text)
        return _USER_FIELD.sub(lambda m: m.group(1) + self._placeholder("user", m.group(2)), text)

    def _sub(self, kind: str, value: str) -> str:
        if kind == "uuid" and value.lower().replace("-", "") in self._keep:
            return value
        return self._placeholder(kind, value)
