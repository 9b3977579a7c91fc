"""Findings and their rendering: one line each, `OK`, `WARN` or `FAIL`, with the fix."""

from __future__ import annotations

import enum
import json
from collections.abc import Sequence
from dataclasses import dataclass


class Status(enum.StrEnum):
    OK = "ok"
    WARN = "warn"  # kmsgd records, but a crash may leave less evidence than it could
    FAIL = "fail"  # no post-mortem (or a wrong one) until this is fixed


@dataclass(frozen=True, slots=True)
class Finding:
    check: str  # stable name, the JSON key operators script on ("ring", "sysctls", ...)
    status: Status
    summary: str  # what was found, one line
    fix: str = ""  # what to do about it; empty when OK


def ok(check: str, summary: str) -> Finding:
    return Finding(check, Status.OK, summary)


def warn(check: str, summary: str, fix: str) -> Finding:
    return Finding(check, Status.WARN, summary, fix)


def fail(check: str, summary: str, fix: str) -> Finding:
    return Finding(check, Status.FAIL, summary, fix)


def exit_status(findings: Sequence[Finding]) -> int:
    """0 when nothing failed (warnings allowed), 1 otherwise."""
    return 1 if any(f.status is Status.FAIL for f in findings) else 0


def render_text(findings: Sequence[Finding]) -> str:
    width = max((len(f.check) for f in findings), default=0)
    lines = []
    for f in findings:
        fix = f" -> {f.fix}" if f.fix else ""
        lines.append(f"{f.status.value.upper():<4} {f.check:<{width}}  {f.summary}{fix}")
    counts = {s: sum(f.status is s for f in findings) for s in Status}
    lines.append(
        f"{counts[Status.FAIL]} failed, {counts[Status.WARN]} warnings, {counts[Status.OK]} ok"
    )
    return "\n".join(lines) + "\n"


def render_json(findings: Sequence[Finding]) -> str:
    doc = {
        "schema": "kmsgd.check/1",
        "status": "fail" if exit_status(findings) else "ok",
        "checks": [
            {"check": f.check, "status": f.status.value, "summary": f.summary, "fix": f.fix or None}
            for f in findings
        ],
    }
    return json.dumps(doc, indent=2) + "\n"
