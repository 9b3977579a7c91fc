"""How a boot ended, from its journal's final entries (read by `journal`): a shutdown or reboot
that systemd finished, or none.

Only a boot's FINAL entries speak about its end. The journal also holds what people typed
while investigating (`journalctl | grep systemd-shutdown`, an sshd line saying "reboot"), so
evidence counts only from the programs that write it, by trusted fields (_PID, _COMM) that
journald fills in itself, never by searching the whole boot's text.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from kmsgd.logparse.systemd_journal import JournalEntry
from kmsgd.types import Confidence

# --- how the boot ended, from its final entries ----------------------------------------------


class ShutdownKind(enum.StrEnum):
    POWEROFF = "poweroff"
    REBOOT = "reboot"
    HALT = "halt"
    KEXEC = "kexec"
    UNKNOWN = "unknown"  # went down on purpose; which way the journal does not say


class _Stage(enum.StrEnum):
    REQUESTED = "requested"  # logind accepted a shutdown; services still to stop
    FINAL = "final"  # PID 1 reached the last targets or handed over to systemd-shutdown
    STOPPED = "stopped"  # journald wrote its last entry
    STARTED = "started"  # journald (re)started: what came before is not this boot's end


_K = ShutdownKind
_T = r"Reached target (?:[\w@.-]+\.target - )?"  # 252 logs "poweroff.target - System Power Off"
# (who, pattern, stage, kind). Texts of systemd 252: unit descriptions in units/*.target (older
# releases: "Power-Off", "Reboot", "Halt"), src/core/main.c "Shutting down.", src/shutdown/
# shutdown.c, src/login/logind-dbus.c ("System is %s." + SHUTDOWN=), journald's driver messages.
_MARKERS: tuple[tuple[str, re.Pattern[str], _Stage, ShutdownKind], ...] = tuple(
    (who, re.compile(pattern), stage, kind)
    for who, pattern, stage, kind in (
        ("pid1", rf"{_T}(?:System )?Power[- ]?Off\.", _Stage.FINAL, _K.POWEROFF),
        ("pid1", rf"{_T}(?:System )?Reboot\.", _Stage.FINAL, _K.REBOOT),
        ("pid1", rf"{_T}(?:System )?Halt\.", _Stage.FINAL, _K.HALT),
        ("pid1", rf"{_T}(?:Reboot via kexec|Kexec)\.", _Stage.FINAL, _K.KEXEC),
        ("pid1", rf"{_T}(?:System )?Shutdown\.", _Stage.FINAL, _K.UNKNOWN),
        ("pid1", rf"{_T}Late Shutdown Services\.", _Stage.FINAL, _K.UNKNOWN),
        ("pid1", r"Shutting down\.", _Stage.FINAL, _K.UNKNOWN),
        ("shutdown", r"Powering off\.", _Stage.FINAL, _K.POWEROFF),
        ("shutdown", r"Rebooting with kexec\.", _Stage.FINAL, _K.KEXEC),
        ("shutdown", r"Rebooting\.", _Stage.FINAL, _K.REBOOT),
        ("shutdown", r"Halting system\.", _Stage.FINAL, _K.HALT),
        ("shutdown", r".+", _Stage.FINAL, _K.UNKNOWN),  # it runs only at the very end
        ("logind", r"System is powering down\b.*", _Stage.REQUESTED, _K.POWEROFF),
        ("logind", r"System is rebooting with kexec\b.*", _Stage.REQUESTED, _K.KEXEC),
        ("logind", r"System is rebooting\b.*", _Stage.REQUESTED, _K.REBOOT),
        ("logind", r"System is halting\b.*", _Stage.REQUESTED, _K.HALT),
        ("journald", r"Journal stopped", _Stage.STOPPED, _K.UNKNOWN),
        ("journald", r"Journal started", _Stage.STARTED, _K.UNKNOWN),
    )
)  # fmt: skip
_LOGIND_FIELD = {"power-off": _K.POWEROFF, "reboot": _K.REBOOT, "halt": _K.HALT, "kexec": _K.KEXEC}
_KIND_TRUST = ("shutdown", "pid1", "logind")  # whose word on the kind wins


def _who(e: JournalEntry) -> str | None:
    """Which systemd program wrote the entry, judged by the fields journald fills in itself.

    `logger -t systemd-logind` or a user's own systemd (not PID 1) sets the identifier but not
    the trusted _PID/_COMM, so typed or spoofed lines never count.
    """
    native = e.transport in ("journal", "driver", "")
    if e.identifier == "systemd" and e.pid == 1:
        return "pid1"
    if e.identifier == "systemd-shutdown" and e.pid == 1:
        return "shutdown"
    if e.identifier == "systemd-logind" and (e.comm == "systemd-logind" or (not e.comm and native)):
        return "logind"
    journald = e.comm == "systemd-journal" or (not e.comm and e.transport == "driver")
    if e.identifier == "systemd-journald" and journald:
        return "journald"
    return None


def _marker(e: JournalEntry) -> tuple[str, _Stage, ShutdownKind] | None:
    who = _who(e)
    if who is None:
        return None
    for w, pattern, stage, kind in _MARKERS:
        if w == who and pattern.fullmatch(e.message.strip()):
            if who == "logind" and e.shutdown in _LOGIND_FIELD:
                kind = _LOGIND_FIELD[e.shutdown]
            return who, stage, kind
    return None


@dataclass(frozen=True, slots=True)
class ShutdownEvidence:
    """What a boot's final journal entries say about its end."""

    clean: bool  # systemd reached its final shutdown stage
    kind: ShutdownKind | None  # None: no sign of a shutdown at all
    confidence: Confidence  # in `clean`
    requested: bool  # logind accepted a poweroff/reboot request
    final_stage: bool
    journal_stopped: bool  # journald wrote "Journal stopped"
    detail: str
    evidence: tuple[JournalEntry, ...] = ()
    last: JournalEntry | None = None


def shutdown_evidence(entries: list[JournalEntry]) -> ShutdownEvidence:
    """Judge the end of a boot from its FINAL entries (`final_entries`), never the whole boot.

    Markers before journald's last "Journal started" belong to an earlier phase (initrd,
    a journald restart) and are dropped.
    """
    found: list[tuple[JournalEntry, str, _Stage, ShutdownKind]] = []
    for e in entries:
        m = _marker(e)
        if m is not None and m[1] is _Stage.STARTED:
            found = []
        elif m is not None:
            found.append((e, *m))
    stages = {stage for _, _, stage, _ in found}
    final = _Stage.FINAL in stages
    requested = _Stage.REQUESTED in stages
    stopped = _Stage.STOPPED in stages
    kinds = {who: kind for _, who, _, kind in found if kind is not _K.UNKNOWN}
    kind: ShutdownKind | None = next((kinds[w] for w in _KIND_TRUST if w in kinds), None)
    if kind is None and (final or requested):
        kind = _K.UNKNOWN
    last = entries[-1] if entries else None
    if not entries:
        conf, detail = Confidence.LOW, "the journal holds no entries for this boot"
    elif final and stopped:
        conf, detail = Confidence.HIGH, "systemd reached its final shutdown stage; journald stopped"
    elif final:
        conf = Confidence.MEDIUM
        detail = "systemd reached its final shutdown stage, but journald's own stop is missing"
    elif requested:
        conf = Confidence.MEDIUM
        detail = "a shutdown was requested but the journal ends before systemd's final stage"
    elif stopped:
        conf, detail = Confidence.LOW, "journald stopped with no shutdown marker before it"
    else:
        conf, detail = Confidence.MEDIUM, "the journal ends with no sign of a shutdown"
    return ShutdownEvidence(
        clean=final,
        kind=kind,
        confidence=conf,
        requested=requested,
        final_stage=final,
        journal_stopped=stopped,
        detail=detail,
        evidence=tuple(e for e, *_ in found[-8:]),
        last=last,
    )
