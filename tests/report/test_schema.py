"""docs/report.schema.json: a valid schema, the outcome vocabulary of kmsgd.types, and every
field documented in docs/report.md. (Each report the tests make is validated: reportschema.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reportschema import SCHEMA_PATH, validate_report

from kmsgd.types import Confidence, Outcome

DOC = Path(__file__).resolve().parents[2] / "docs" / "report.md"


def schema() -> dict[str, object]:
    doc: dict[str, object] = json.loads(SCHEMA_PATH.read_text())
    return doc


def test_outcomes_and_confidences_are_the_vocabulary() -> None:
    props = schema()["properties"]
    assert isinstance(props, dict)
    assert props["outcome"]["enum"] == [o.value for o in Outcome]
    assert props["confidence"]["enum"] == [c.value for c in Confidence]


def test_every_field_is_documented() -> None:
    props = schema()["properties"]
    assert isinstance(props, dict)
    text = DOC.read_text()
    assert not [k for k in props if f"`{k}`" not in text]


def test_a_wrong_report_is_refused() -> None:
    pytest.importorskip("jsonschema")
    with pytest.raises(AssertionError, match=r"kmsgd\.report/1 schema"):
        validate_report({"schema": "kmsgd.report/1", "outcome": "exploded"})
