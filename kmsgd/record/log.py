"""The daemon's own logs, with syslog priorities.

Under systemd (stderr is the journal stream named by $JOURNAL_STREAM, systemd.exec(5)) each
event goes to the journal natively: PRIORITY from the level, the event name as KMSGD_EVENT and
every field as KMSGD_<NAME>, so `journalctl -u kmsgd -p warning` finds what needs a look and
`journalctl KMSGD_EVENT=dropping_kernel_records` finds one kind. Anywhere else (a terminal,
a test, another supervisor) the same events are logfmt lines on stderr.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import re
import sys
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any, TextIO

import structlog

# syslog(3) priorities, as journald's PRIORITY= field takes them.
PRIORITY = {"critical": 2, "error": 3, "warning": 4, "notice": 5, "info": 6, "debug": 7}
IDENTIFIER = "kmsgd"
_FIELD_CHARS = re.compile(r"[^A-Z0-9_]")
_BARE = re.compile(r"^[^\s\"=\\]+$")

Sender = Callable[..., Any]  # systemd.journal.send(MESSAGE, **fields)


def under_journal(stream: TextIO | None = None, env: Mapping[str, str] | None = None) -> bool:
    """True when `stream` (stderr) is the journal stream systemd connected: $JOURNAL_STREAM is
    "<st_dev>:<st_ino>" of it (systemd.exec(5)), so a redirected stderr is not taken for it."""
    value = (os.environ if env is None else env).get("JOURNAL_STREAM", "")
    dev, _, ino = value.partition(":")
    if not (dev.isdigit() and ino.isdigit()):
        return False
    try:
        st = os.fstat((stream or sys.stderr).fileno())
    except (OSError, ValueError):
        return False
    return st.st_dev == int(dev) and st.st_ino == int(ino)


def field_name(key: str) -> str:
    """A journal field name for an event key: KMSGD_ + upper case, [A-Z0-9_] only, at most 64
    characters (journald drops fields with other names: systemd.journal-fields(7))."""
    return ("KMSGD_" + _FIELD_CHARS.sub("_", key.upper()))[:64]


def logfmt_value(value: Any) -> str:
    text = str(value)
    if _BARE.match(text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def logfmt(event: str, fields: Mapping[str, Any]) -> str:
    """`event key=value ...`, values quoted only when they must be."""
    return " ".join([event, *(f"{k}={logfmt_value(v)}" for k, v in fields.items())])


def journal_entry(event_dict: Mapping[str, Any]) -> dict[str, str]:
    """The journal fields of one event (pure: the mapping tests check)."""
    rest = dict(event_dict)
    event = str(rest.pop("event", ""))
    level = str(rest.pop("level", "info"))
    rest.pop("timestamp", None)  # journald stamps every entry itself
    fields = {
        "MESSAGE": logfmt(event, rest),
        "PRIORITY": str(PRIORITY.get(level, PRIORITY["info"])),
        "SYSLOG_IDENTIFIER": IDENTIFIER,
        "KMSGD_EVENT": event,
    }
    for key, value in rest.items():
        fields[field_name(key)] = str(value)
    return fields


def terminal_line(event_dict: Mapping[str, Any]) -> str:
    """`<UTC time> <level> event key=value ...` for a terminal or a file."""
    rest = dict(event_dict)
    event = str(rest.pop("event", ""))
    level = str(rest.pop("level", "info"))
    stamp = str(rest.pop("timestamp", "")) or dt.datetime.now(dt.UTC).isoformat()
    return f"{stamp} level={level} " + logfmt(event, rest)


class JournalLogger:
    """A structlog logger that hands each rendered event to the journal; when the journal
    refuses (socket gone while the system shuts down), the line goes to stderr instead."""

    def __init__(self, send: Sender, fallback: TextIO) -> None:
        self._send = send
        self._fallback = fallback

    def msg(self, fields: dict[str, str]) -> None:
        message = fields.pop("MESSAGE", "")
        try:
            self._send(message, **fields)
        except OSError:
            self._fallback.write(f"<{fields.get('PRIORITY', '6')}>{message}\n")
            self._fallback.flush()

    debug = info = notice = warning = error = critical = exception = log = msg


def _to_journal(_logger: Any, _name: str, event_dict: MutableMapping[str, Any]) -> Any:
    return ((journal_entry(event_dict),), {})


def _to_terminal(_logger: Any, _name: str, event_dict: MutableMapping[str, Any]) -> str:
    return terminal_line(event_dict)


def _journal_sender() -> Sender | None:
    try:
        from systemd import journal
    except ImportError:
        return None
    send: Sender = journal.send
    return send


def configure(
    level: str = "info",
    *,
    stream: TextIO | None = None,
    env: Mapping[str, str] | None = None,
    send: Sender | None = None,
) -> Any:
    """The daemon's logger: native journal entries under systemd, logfmt lines otherwise.
    `send` replaces systemd.journal.send (tests)."""
    out = stream or sys.stderr
    processors: list[Any] = [structlog.processors.add_log_level]
    factory: Any
    sender = send or (_journal_sender() if under_journal(out, env) else None)
    if sender is not None:
        processors.append(_to_journal)
        factory = lambda *_args: JournalLogger(sender, out)  # noqa: E731
    else:
        processors += [structlog.processors.TimeStamper(fmt="iso", utc=True), _to_terminal]
        factory = structlog.PrintLoggerFactory(file=out)
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=factory,
        cache_logger_on_first_use=False,
    )
    return structlog.get_logger(IDENTIFIER)
