"""Single-line parsers, one regex per log family; pure functions from text to `Fields`.

Each parser returns None when the line is not of its format. The stateful part (dmesg -H
deltas, missing years, the host of a short-monotonic journal) lives in `stream.py`.
Formats: util-linux dmesg(1) (`--time-format`, `-r`, `-x`, `-H`), journalctl(1) `-o short*`,
rsyslog's RSYSLOG_TraditionalFileFormat and RSYSLOG_FileFormat, RFC 5424 syslog,
Documentation/ABI/testing/dev-kmsg.
"""

from __future__ import annotations

import calendar
import datetime as dt
import functools
import re
from typing import NamedTuple

from kmsgd.logparse.origin import kernel_opening
from kmsgd.logparse.parsed import LogFormat

MONTHS = {m: i for i, m in enumerate(calendar.month_abbr) if m}
# localised month abbreviations (glibc's abmon of the languages seen in tickets), by their
# first three letters (four where two months share three)
LOCAL_MONTHS = {
    **{m.lower(): n for m, n in MONTHS.items()},
    "mär": 3, "mai": 5, "okt": 10, "dez": 12,  # de
    "jan": 1, "fév": 2, "fev": 2, "mar": 3, "avr": 4, "juin": 6, "juil": 7, "aoû": 8,
    "aou": 8, "déc": 12,  # fr, pt
    "ene": 1, "abr": 4, "ago": 8, "dic": 12,  # es
    "gen": 1, "mag": 5, "giu": 6, "lug": 7, "set": 9, "ott": 10,  # it
    "mrt": 3, "mei": 5,  # nl
    "out": 10,  # pt
    "sty": 1, "lut": 2, "kwi": 4, "maj": 5, "cze": 6, "lip": 7, "sie": 8, "wrz": 9,
    "paź": 10, "lis": 11, "gru": 12,  # pl
    "янв": 1, "фев": 2, "мар": 3, "апр": 4, "мая": 5, "май": 5, "июн": 6, "июл": 7,
    "авг": 8, "сен": 9, "окт": 10, "ноя": 11, "дек": 12,  # ru
}  # fmt: skip
LEVELS = {
    "emerg": 0,
    "alert": 1,
    "crit": 2,
    "err": 3,
    "warn": 4,
    "notice": 5,
    "info": 6,
    "debug": 7,
}
FACILITIES = {
    "kern": 0,
    "user": 1,
    "mail": 2,
    "daemon": 3,
    "auth": 4,
    "syslog": 5,
    "lpr": 6,
    "news": 7,
    "uucp": 8,
    "cron": 9,
    "authpriv": 10,
    "ftp": 11,
}


class Fields(NamedTuple):
    """What one line says; `ident` is None for a kernel line, else the program's name.
    (A NamedTuple: made once per input line, a frozen dataclass costs 4× as much.)"""

    fmt: LogFormat
    message: str
    ts_usec: int | None = None
    wall_us: int | None = None
    level: int | None = None
    facility: int | None = None
    seq: int | None = None
    caller: str | None = None
    host: str = ""
    ident: str | None = None
    pid: str = ""
    month_day: tuple[int, int] | None = None  # yearless stamp: year is resolved by the stream
    delta_us: int | None = None  # dmesg -H relative stamp
    minute_header: bool = False  # dmesg -H "[May 6 14:02]" line


def usec(sec: str, frac: str | None) -> int:
    """`"12", "3456"` → 12_345_600 µs; dmesg pastes sometimes keep fewer than six digits."""
    f = (frac or "")[:6].ljust(6, "0")
    return int(sec) * 1_000_000 + int(f)


def _epoch_us(d: dt.datetime) -> int:
    if d.tzinfo is None:  # local time of an unknown zone: kept "as printed"
        d = d.replace(tzinfo=dt.UTC)
    delta = d - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def _tz(text: str | None) -> dt.tzinfo | None:
    if not text:
        return None
    if text == "Z":
        return dt.UTC
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    return dt.timezone(sign * dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0)))


def iso_us(date: str, hms: str, frac: str | None, tz: str | None) -> int | None:
    """Wall-clock µs since the epoch from ISO pieces; None for an impossible date."""
    try:
        y, mo, d = (int(x) for x in date.split("-"))
        h, mi, s = (int(x) for x in hms.split(":"))
        when = dt.datetime(y, mo, d, h, mi, s, tzinfo=_tz(tz))
    except ValueError:
        return None
    return _epoch_us(when) + (usec("0", frac) if frac else 0)


@functools.lru_cache(maxsize=64)
def _day_us(year: int, month: int, day: int) -> int | None:
    try:
        return _epoch_us(dt.datetime(year, month, day))
    except ValueError:
        return None


def wall_from_parts(year: int, month: int, day: int, hms: str, frac: str | None) -> int | None:
    """µs since the epoch of a wall time as printed ("HH:MM:SS"); the day is cached, as a
    log has few days and a journal line is parsed a million times in a big one."""
    base = _day_us(year, month, day)
    if base is None or len(hms) != 8:
        return None
    h, mi, s = int(hms[0:2]), int(hms[3:5]), int(hms[6:8])
    if h > 23 or mi > 59 or s > 60:
        return None
    return base + (h * 3600 + mi * 60 + s) * 1_000_000 + (usec("0", frac) if frac else 0)


_KMSG = re.compile(r"(\d{1,4}),(\d{1,20}),(\d{1,18}),([-c])((?:,[^;]*)?);(.*)")
# after the stamp, CONFIG_PRINTK_CALLER's "[T<pid>]"/"[C<cpu>]" (4.19+), or the bare
# "[<cpu>]" that vendor kernels print against the stamp (AVM's FRITZ!OS 3.10/4.x)
# util-linux dmesg.c "-d" (--show-delta) adds the time since the record before inside the
# brackets: "[%5ld.%06ld <%12.06f>] ", with -T "[%s <%12.06f>] "; a paste that lost the
# first line's opening bracket (a copy started one character late) keeps printk's exact
# "%5lu.%06lu] ", which nothing else writes at the start of a line
_DMESG = re.compile(
    r"(?:<(\d{1,3})>)?(?:\[\s*|(?=\d{1,12}\.\d{6}\] ))(\d{1,12})\.(\d+)(?: <\s*\d+\.\d+>)?\]"
    r"(?:\s?\[\s*([TC]\d+)\]|\[\d{1,3}\])?\s?(.*)"
)
# util-linux dmesg.c prints -H's minute header with strftime "%b%d %H:%M" and the offset
# with the locale's decimal point, so a non-English locale writes "[apr18 15:18]" and
# "[ +10,214451]" (sv_SE, nb_NO, de_DE abmon and decimal comma)
# "--time-format delta" prints the time since the record before alone: "[<%12.06f>] "
_DMESG_DELTA = re.compile(r"\[(?:\s*\+|<)\s*(\d{1,12})[.,](\d+)>?\]\s?(.*)")
_DMESG_MINUTE = re.compile(r"\[([^\W\d_]{3,4})\.?\s*(\d{1,2}) (\d{2}:\d{2})\]\s?(.*)")
# dmesg -T prints strftime "%a %b %e %H:%M:%S %Y" in the user's locale: CJK locales write
# the weekday as one character and the month as its number and 月/월 ("[三 9月  6 11:00:27
# 2017]", glibc's zh_CN, ja_JP and ko_KR abmon)
_DMESG_CTIME = re.compile(
    r"(?:<(\d{1,3})>)?\[(?:[^\W\d_]{1,4}\.? +)?([A-Z][a-z]{2}|\d{1,2}[月월])\s+(\d{1,2}) "
    r"(\d{2}:\d{2}:\d{2}) (\d{4})(?: <\s*\d+\.\d+>)?\]\s?(.*)"
)
# util-linux dmesg.c "--time-format iso": "%Y-%m-%dT%H:%M:%S,%06ld" and the UTC offset, then
# CONFIG_PRINTK_CALLER's "[T<pid>]"/"[C<cpu>]" as after dmesg's bracket stamp; a paste may
# carry the stamp with its offset cut (the comma and six digits still say dmesg)
_DMESG_ISO = re.compile(
    r"(?:<(\d{1,3})>)?(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2}),(\d{6})(Z|[+-]\d{2}:?\d{2})?"
    r"(?:\s\[\s*([TC]\d+)\])?\s(.*)"
)
_DMESG_DECODE = re.compile(
    r"([a-z]+[0-7]?)\s*:(emerg|alert|crit|err|warn|notice|info|debug)\s*: ?"
    r"(?:\[\s*(\d+)\.(\d+)\] ?)?(.*)"
)
# journal/syslog: stamp, host, "ident[pid]:" and the text; ident may be "kernel"
_TAIL = r" (\S+) ([^\s\[]+?)(?:\[(\d+)\])?:(?: (.*))?"
_JOURNAL = re.compile(r"([A-Z][a-z]{2}) ([ \d]?\d) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?" + _TAIL)
_JOURNAL_ISO = re.compile(
    r"(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})" + _TAIL
)
# journalctl -o short-full (systemd src/shared/logs-show.c, TIMESTAMP_PRETTY): strftime
# "%a %Y-%m-%d %H:%M:%S %Z", the zone by its abbreviation
_JOURNAL_FULL = re.compile(
    r"[^\W\d_]{2,4}\.? (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))? ([A-Z][A-Za-z]{1,5}"
    r"|[+-]\d{2}:?\d{2})" + _TAIL
)
_JOURNAL_MONO = re.compile(r"\[\s*(\d{1,12})\.(\d+)\]" + _TAIL)
# RFC 5424 syslog (rsyslog's RSYSLOG_SyslogProtocol23Format, syslog-ng's syslog(), journald
# forwarders): "<PRI>1 TIMESTAMP HOST APP-NAME PROCID MSGID STRUCTURED-DATA MSG", "-" for
# a field left out; the PRI carries the facility (0: the kernel's)
_RFC5424 = re.compile(
    r"<(\d{1,3})>1 (\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})"
    r" (\S+) (\S+) (\S+) \S+ (?:-|(?:\[(?:[^\]\\]|\\.)*\])+)(?: \ufeff?(.*))?"
)
# rsyslog/journal kernel lines that carry printk's own stamp: "kernel: [   12.345678] text"
_NO_HOST = re.compile(r"([^\s\[]+?)(?:\[(\d+)\])?:")
# (with the caller or CPU field that may follow the stamp, as in dmesg's)
_EMBEDDED_TS = re.compile(r"\[\s*(\d{1,12})\.(\d{6})\](?:\s?\[\s*[TC]\d+\]|\[\d{1,3}\])? ?(.*)")
_ESCAPE = re.compile(r"\\x([0-9a-fA-F]{2})")


def unescape_kmsg(text: str) -> str:
    """Undo /dev/kmsg's `\\xNN` escaping (every byte < 0x20, >= 0x7f and `\\`), then UTF-8."""
    if "\\x" not in text:
        return text
    raw = _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)
    try:
        return raw.encode("latin-1").decode("utf-8", errors="replace")
    except UnicodeEncodeError:  # already decoded text with \x sequences in it
        return raw


def parse_kmsg(line: str) -> Fields | None:
    m = _KMSG.fullmatch(line)
    if m is None:
        return None
    prio = int(m.group(1))
    caller = None
    for extra in m.group(5).split(","):
        if extra.startswith("caller="):
            caller = extra[7:]
    return Fields(
        LogFormat.KMSG,
        unescape_kmsg(m.group(6)),
        ts_usec=int(m.group(3)),
        level=prio & 7,
        facility=prio >> 3,
        seq=int(m.group(2)),
        caller=caller,
    )


def parse_dmesg(line: str) -> Fields | None:
    m = _DMESG.match(line)
    if m is None:
        return None
    prio, sec, frac, caller, text = m.groups()
    ts = (
        int(sec) * 1_000_000 + int(frac[:6]) * _SCALE[len(frac)]
        if len(frac) < 7
        else usec(sec, frac)
    )
    if prio is None:  # the common case, kept cheap: this runs once per dmesg line
        return Fields(LogFormat.DMESG, text, ts, None, None, None, None, caller)
    p = int(prio)
    return Fields(LogFormat.DMESG, text, ts, None, p & 7, p >> 3, None, caller)


_SCALE = (1_000_000, 100_000, 10_000, 1_000, 100, 10, 1)  # µs per unit of a fraction of n digits


def parse_dmesg_ctime(line: str) -> Fields | None:
    m = _DMESG_CTIME.match(line)
    if m is None:
        return None
    mon = m.group(2)
    month = MONTHS.get(mon) or (int(mon[:-1]) if mon[0].isdigit() else 0)
    if not 1 <= month <= 12:
        return None
    prio = m.group(1)
    wall = wall_from_parts(int(m.group(5)), month, int(m.group(3)), m.group(4), None)
    return Fields(
        LogFormat.DMESG_CTIME,
        m.group(6),
        wall_us=wall,
        level=int(prio) & 7 if prio else None,
        facility=int(prio) >> 3 if prio else None,
    )


def parse_dmesg_iso(line: str) -> Fields | None:
    m = _DMESG_ISO.match(line)
    if m is None:
        return None
    prio = m.group(1)
    wall = iso_us(m.group(2), m.group(3), m.group(4), m.group(5))
    return Fields(
        LogFormat.DMESG_ISO,
        m.group(7),
        wall_us=wall,
        level=int(prio) & 7 if prio else None,
        facility=int(prio) >> 3 if prio else None,
        caller=m.group(6),
    )


def parse_dmesg_delta(line: str) -> Fields | None:
    m = _DMESG_DELTA.match(line)
    if m is not None:
        return Fields(LogFormat.DMESG_DELTA, m.group(3), delta_us=usec(m.group(1), m.group(2)))
    m = _DMESG_MINUTE.match(line)
    month = LOCAL_MONTHS.get(m.group(1).lower()) if m is not None else None
    if m is None or month is None:
        return None
    return Fields(
        LogFormat.DMESG_DELTA,
        m.group(4),
        month_day=(month, int(m.group(2))),
        wall_us=wall_from_parts(2000, month, int(m.group(2)), m.group(3) + ":00", None),
        minute_header=True,
    )


def parse_dmesg_decode(line: str) -> Fields | None:
    m = _DMESG_DECODE.match(line)
    if m is None or (m.group(1) not in FACILITIES and not m.group(1).startswith("local")):
        return None
    fac = FACILITIES.get(m.group(1), 16 + int(m.group(1)[-1]) if m.group(1)[-1].isdigit() else 1)
    ts = usec(m.group(3), m.group(4)) if m.group(3) else None
    return Fields(
        LogFormat.DMESG_DECODE, m.group(5), ts_usec=ts, level=LEVELS[m.group(2)], facility=fac
    )


def _journal_fields(
    fmt: LogFormat,
    m: re.Match[str],
    first: int,
    *,
    ts_usec: int | None = None,
    wall_us: int | None = None,
    month_day: tuple[int, int] | None = None,
) -> Fields:
    host, ident, pid, text = m.group(first, first + 1, first + 2, first + 3)
    text = text or ""
    ts = ts_usec
    if host[-1] == ":" and (who := _NO_HOST.fullmatch(host)) is not None:
        # `journalctl --no-hostname`: what was read as the host is "ident[pid]:"
        ident, pid = who.group(1, 2)
        text = m.string[m.start(first + 1) :]
        host = ""
    if not pid and ident[:1].isdigit() and (rec := parse_kmsg(f"{ident}: {text}")) is not None:
        # a forwarder that wrote /dev/kmsg records verbatim: "0,16627,40311380557,-;BUG: …"
        return rec._replace(fmt=fmt, wall_us=wall_us, host=host, month_day=month_day)
    if ident != "kernel" and not pid and kernel_opening(f"{ident}: {text}"):
        # "NVRM: Xid …" read as program NVRM: a program's journal line has a pid, and
        # this one opens the way only kernel messages do (origin.py)
        ident, text = "kernel", f"{ident}: {text}"
    if ident == "kernel":
        if text[:1] == "[":
            emb = _EMBEDDED_TS.match(text)
            if emb is not None:  # syslog's monotonic stamp: may disagree with the wall clock
                ts, text = usec(emb.group(1), emb.group(2)), emb.group(3)
        return Fields(fmt, text, ts, wall_us, None, 0, None, None, host, None, "", month_day)
    message = f"{ident}[{pid}]: {text}" if pid else f"{ident}: {text}"
    return Fields(
        fmt,
        message,
        ts_usec=ts,
        host=host,
        ident=ident,
        pid=pid or "",
        facility=3,
        wall_us=wall_us,
        month_day=month_day,
    )


def parse_journal(line: str) -> Fields | None:
    m = _JOURNAL.match(line)
    if m is None:
        return None
    mon, day, hms, frac = m.group(1, 2, 3, 4)
    month = MONTHS.get(mon)
    if month is None:
        return None
    md = (month, int(day))
    wall = wall_from_parts(2000, month, md[1], hms, frac)
    return _journal_fields(LogFormat.JOURNAL, m, 5, wall_us=wall, month_day=md)


def parse_journal_iso(line: str) -> Fields | None:
    m = _JOURNAL_ISO.match(line)
    if m is None:
        return None
    wall = iso_us(m.group(1), m.group(2), m.group(3), m.group(4))
    return _journal_fields(LogFormat.JOURNAL_ISO, m, 5, wall_us=wall)


def parse_journal_full(line: str) -> Fields | None:
    m = _JOURNAL_FULL.match(line)
    if m is None:
        return None
    zone = m.group(4)
    tz = "Z" if zone in ("UTC", "GMT") else zone if zone[0] in "+-" else None
    wall = iso_us(m.group(1), m.group(2), m.group(3), tz)  # another zone: as printed
    return _journal_fields(LogFormat.JOURNAL_ISO, m, 5, wall_us=wall)


def parse_journal_mono(line: str, host: str = "") -> Fields | None:
    """short-monotonic; ambiguous with dmesg ("[ 1.0] usb 1-1: ..."), so the host must be
    known already, or the identifier must be `kernel` (also without a host) or carry a
    `[pid]`."""
    m = _JOURNAL_MONO.match(line)
    if m is None:
        return None
    # "[ 12.3] kernel: text": `--no-hostname`, the host field is the kernel's identifier
    known = m.group(4) == "kernel" or m.group(3) == "kernel:"
    if not (known or m.group(5) or (host and m.group(3) == host)):
        return None
    return _journal_fields(LogFormat.JOURNAL_MONO, m, 3, ts_usec=usec(m.group(1), m.group(2)))


def parse_rfc5424(line: str) -> Fields | None:
    m = _RFC5424.match(line)
    if m is None:
        return None
    prio, date, hms, frac, tz, host, app, procid, text = m.groups()
    p = int(prio)
    if p > 191:
        return None
    wall = iso_us(date, hms, frac, tz)
    text = text or ""
    host = "" if host == "-" else host
    if p >> 3 == 0:  # the kernel's facility: the message, with printk's stamp if it kept one
        ts = None
        emb = _EMBEDDED_TS.match(text) if text[:1] == "[" else None
        if emb is not None:
            ts, text = usec(emb.group(1), emb.group(2)), emb.group(3)
        return Fields(LogFormat.RFC5424, text, ts, wall, p & 7, 0, host=host)
    pid = "" if procid == "-" else procid
    ident = "" if app == "-" else app
    message = f"{ident}[{pid}]: {text}" if pid else f"{ident}: {text}"
    return Fields(
        LogFormat.RFC5424,
        message,
        wall_us=wall,
        level=p & 7,
        facility=p >> 3,
        host=host,
        ident=ident,
        pid=pid,
    )


def parse_pstore_header(line: str) -> bool:
    """`Panic#1 Part1` and friends: fs/pstore/platform.c writes "%s#%d Part%u" per chunk."""
    return _PSTORE.fullmatch(line) is not None


_PSTORE = re.compile(r"(Panic|Oops|Emergency|Shutdown|Halt|Poweroff|Restart|Unknown)#\d+ Part\d+")
