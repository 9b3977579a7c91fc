"""The shipped Prometheus rules and Grafana dashboard: promtool checks and unit-tests the rules,
every PromQL expression of the dashboard parses, and every kmsgd metric they name is one the
textfiles really carry (kmsgd/outputs.py, kmsgd/report/export.py)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from kmsgd import outputs
from kmsgd.report import export

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "contrib" / "prometheus" / "kmsgd-alerts.yml"
DASHBOARD = ROOT / "contrib" / "grafana" / "kmsgd-fleet.json"


def promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        pytest.skip("promtool not installed (Debian package prometheus; tools/bootstrap adds it)")
    return found


def run(*argv: str, cwd: Path = ROOT) -> None:
    out = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]


def test_rules_pass_promtool_check() -> None:
    run(promtool(), "check", "rules", str(RULES))


def test_rules_fire_as_their_unit_tests_say() -> None:
    run(promtool(), "test", "rules", "kmsgd-alerts.test.yml", cwd=RULES.parent)


def dashboard_exprs() -> list[str]:
    doc = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for p in doc["panels"] for t in p.get("targets", [])]
    return exprs + [a["expr"] for a in doc["annotations"]["list"]]


def test_every_dashboard_query_parses(tmp_path: Path) -> None:
    # promtool parses PromQL only inside rule files: each query becomes a recording rule.
    rules = {
        "groups": [
            {
                "name": "dashboard",
                "rules": [
                    {"record": f"kmsgd:dashboard_{i}", "expr": e.replace("$instance", ".*")}
                    for i, e in enumerate(dashboard_exprs())
                ],
            }
        ]
    }
    path = tmp_path / "dashboard.rules.yml"
    path.write_text(json.dumps(rules))  # JSON is YAML
    run(promtool(), "check", "rules", str(path))


def test_rules_and_dashboard_name_only_metrics_kmsgd_writes() -> None:
    sample = export.LastBoot("0" * 32, "hard_freeze", "high", None, "f", 1, 2)
    text = outputs.render_textfile(outputs.Metrics(True, 1, 0)) + export.render_last_boot(sample)
    written = set(re.findall(r"^(kmsgd_\w+)", text, re.MULTILINE))
    named = set(
        re.findall(r"\b(kmsgd_[a-z_]+)\b", RULES.read_text() + "\n".join(dashboard_exprs()))
    )
    assert named and named <= written, named - written
