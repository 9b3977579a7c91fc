"""Every `kmsgd.report/1` document the tests produce is checked against docs/report.schema.json,
and every textfile against Prometheus' own parser.

`install()` (called from conftest.py) wraps `render_json.report_json`, so each report made in the
test process is validated where it is made; `kmsgd()` in daemon.py validates the JSON the CLI
prints. KMSGD_REPORT_SAMPLES=DIR also saves each document there (to review the schema).
"""

from __future__ import annotations

import functools
import json
import os
import uuid
from pathlib import Path
from typing import Any

import pytest

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "docs" / "report.schema.json"


@functools.cache
def _validator() -> Any:
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema not installed (test extra)")
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def required_fields() -> list[str]:
    """The top-level fields every report has: the schema's `required` (docs/report.md)."""
    return list(json.loads(SCHEMA_PATH.read_text())["required"])


def validate_report(doc: Any) -> None:
    """Raise AssertionError naming every place where `doc` breaks the schema."""
    samples = os.environ.get("KMSGD_REPORT_SAMPLES")
    if samples:
        Path(samples).mkdir(parents=True, exist_ok=True)
        (Path(samples) / f"{uuid.uuid4().hex}.json").write_text(json.dumps(doc, indent=1))
    errors = sorted(_validator().iter_errors(doc), key=lambda e: list(e.absolute_path))
    where = [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in errors]
    assert not where, "kmsgd.report/1 schema: " + "; ".join(where[:10])


def validate_output(stdout: str) -> None:
    """Validate each report in a command's stdout (one JSON document, or JSON lines)."""
    for text in [stdout] if stdout.lstrip().startswith("{\n") else stdout.splitlines():
        try:
            doc = json.loads(text)
        except ValueError:
            return
        if isinstance(doc, dict) and doc.get("schema") == "kmsgd.report/1":
            validate_report(doc)


def validate_textfile(text: str) -> None:
    """The text parses with prometheus-client's parser (node_exporter's format)."""
    parser = pytest.importorskip("prometheus_client.parser", reason="prometheus-client missing")
    assert list(parser.text_string_to_metric_families(text))


def install() -> None:
    """Validate every report the test process builds, where it is built."""
    from kmsgd.report import render_json

    original = getattr(render_json, "report_json", None)
    if original is None or getattr(original, "validated", False):
        return

    def report_json(report: Any) -> Any:
        doc = original(report)
        validate_report(doc)
        return doc

    report_json.validated = True  # type: ignore[attr-defined]
    render_json.report_json = report_json
