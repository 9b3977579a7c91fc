"""The `kmsgd.report/1` JSON document of a report (docs/report.md lists its fields,
docs/report.schema.json is its schema, which tests/reportschema.py holds every report the tests
make to). Field names are public and key order is part of the output: never rename or reorder
one. The document and the incidents are built here; the judge's values (telemetry, changes)
and the lines and signatures still give their own objects (`to_json`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from kmsgd.judge.incidents import Incident
from kmsgd.report.model import SCHEMA, Report
from kmsgd.report.render_incident import finding_text


def incident_json(i: Incident) -> dict[str, Any]:
    """One incident: its trigger, times, what was captured, the findings as the text report
    says them, and the blocked tasks with their stacks."""
    return {
        "trigger": i.trigger,
        "class": i.cls,
        "line": i.line,
        "started_by": i.started_by,
        "started": i.started,
        "ended": i.ended,
        "end_reason": i.end_reason,
        "duration_s": i.duration_s,
        "triggers": i.triggers,
        "other_triggers": list(i.other_triggers),
        "captured": dict(i.captured),
        "findings": [finding_text(f) for f in i.findings],
        "blocked": [dataclasses.asdict(b) for b in i.blocked],
    }


def report_json(r: Report) -> dict[str, Any]:
    """The `kmsgd.report/1` document (field names are public: never rename one)."""
    src = r.source
    return {
        "schema": SCHEMA,
        "boot_id": r.boot_id or None,
        "hostname": r.hostname or None,
        "outcome": r.outcome.value,
        "reason": r.reason or None,
        "confidence": r.confidence,
        "headline": r.headline,
        "subject": r.subject,
        "evidence": [
            {"why": e.why, "line": e.line.to_json() if e.line else None} for e in r.evidence
        ],
        "time_of_death": r.time_of_death.to_json() if r.time_of_death else None,
        "primary": r.primary.to_json() if r.primary else None,
        "signatures": [s.to_json() for s in r.signatures],
        "final_kernel": [
            {**f.line.to_json(), "tags": list(f.tags), "important": f.important}
            for f in r.final_kernel
        ],
        "telemetry": r.telemetry.to_json() if r.telemetry else {},
        "changes": [c.to_json() for c in r.changes],
        "fingerprint": r.fingerprint,
        "errors": [{"where": e.where, "error": e.error} for e in r.errors],
        "incidents": [incident_json(i) for i in r.incidents],
        "source": None
        if src is None
        else {
            "name": src.name,
            "formats": list(src.formats),
            "lines": src.lines,
            "evidence_lines": src.evidence_lines,
            "text_lines": src.text_lines,
            "commands": src.commands,
            "boots": src.boots,
            "boot_index": src.boot_index,
            "reversed": src.reversed,
            "cut_lines": src.cut_lines,
            "notes": list(src.notes),
        },
        "boots": [
            {
                "index": b.index,
                "boot_id": b.boot_id or None,
                "lines": b.lines,
                "outcome": b.outcome.value,
                "reason": b.reason or None,
                "first": b.first,
                "last": b.last,
            }
            for b in r.boots
        ],
    }
