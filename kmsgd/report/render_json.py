"""Report values as the `kmsgd.report/1` JSON document's objects (docs/report.md; the schema
test is tests/reportschema.py). Key order is part of the output: never reorder one.

Here: the `incidents` list. The rest of the document is still built by the report's values
(`Report.to_json_dict`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from kmsgd.judge.incidents import Incident
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
