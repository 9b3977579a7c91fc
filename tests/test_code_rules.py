"""Rules of the code base that tools check: linters, types, and which module may import what."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "kmsgd"
BIN = Path(sys.executable).parent


def imports_of(path: Path) -> set[str]:
    """Every module a file imports, at any depth (lazy imports inside functions included)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
    return out


def module_path(name: str) -> Path | None:
    rel = Path(*name.split("."))
    for cand in (ROOT / rel.with_suffix(".py"), ROOT / rel / "__init__.py"):
        if cand.exists():
            return cand
    return None


def closure(start: str) -> set[str]:
    """Modules of kmsgd reachable from `start` through imports."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        name = todo.pop()
        path = module_path(name)
        if name in seen or path is None:
            continue
        seen.add(name)
        todo += [m for m in imports_of(path) if m.startswith("kmsgd")]
    return {m for m in seen if module_path(m) is not None}


# Which stage may import which: data flows one way, sources → ring → judge → report, with the
# catalogue and the log parser beside the judge. The top-level modules (commands, config,
# errors, types, outputs) are the glue; a package may import those that are listed for it.
LAYERS: dict[str, set[str]] = {
    # What leaves kmsgd as text: the output sanitizer, under every stage that renders.
    "text": set(),
    "ring": {"errors", "types", "text"},
    "sensors": {"ring", "errors", "types"},
    "record": {"ring", "sensors", "errors", "types", "config", "outputs"},
    "catalogue": {"ring", "errors", "types"},
    "logparse": {"ring", "errors", "types"},
    "judge": {"ring", "catalogue", "logparse", "errors", "types"},
    "report": {
        "judge",
        "catalogue",
        "logparse",
        "ring",
        "errors",
        "types",
        "outputs",
        "fleet",
        "text",
    },
    # After the report: post-mortem entries of many boxes, read back from journal files.
    "fleet": {"errors", "types", "text"},
    # `kmsgd check` reads what the recorder writes and the machine around it.
    "check": {"config", "ring", "record", "sensors", "errors", "types"},
    # The commands' cores, under the click edge (cli.py): everything but the daemon's sources.
    "commands": {
        "judge",
        "report",
        "logparse",
        "catalogue",
        "ring",
        "record",
        "config",
        "outputs",
        "text",
        "errors",
        "types",
    },
}


def _stage(module: str) -> str | None:
    """The first part below `kmsgd` of a module name: its package or top-level module."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "kmsgd" else None


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_each_stage_imports_only_what_lies_below_it(package: str) -> None:
    allowed = LAYERS[package] | {package}
    wrong = sorted(
        f"{path.relative_to(ROOT)} imports {m}"
        for path in (PKG / package).rglob("*.py")
        for m in imports_of(path)
        if _stage(m) not in allowed | {None, "__version__"}
    )
    assert not wrong


def test_the_report_takes_only_the_entry_contract_from_the_fleet() -> None:
    """kmsgd.fleet.entry_format (field names, export format; standard library only) is the
    contract between the report that writes entries and the fleet that reads them; nothing else
    of the fleet is the report's business."""
    used = {
        m
        for path in (PKG / "report").rglob("*.py")
        for m in imports_of(path)
        if _stage(m) == "fleet"
    }
    assert used <= {"kmsgd.fleet", "kmsgd.fleet.entry_format"}
    assert not {m for m in imports_of(PKG / "fleet" / "entry_format.py") if m.startswith("kmsgd")}


def test_every_stage_package_says_what_it_is_and_may_import() -> None:
    for package in LAYERS:
        doc = ast.get_docstring(ast.parse((PKG / package / "__init__.py").read_text())) or ""
        assert "May import" in doc, f"kmsgd/{package}/__init__.py"


# What each top-level module may import: the shared vocabulary imports nothing of kmsgd; the
# click edge reaches the post-mortem (judge, report, log parser) only through commands/.
TOP_LEVEL: dict[str, set[str]] = {
    "__init__": set(),
    "types": set(),
    "errors": set(),
    "outputs": set(),
    "config": {"errors", "types"},
    "runcmd": {"config", "errors", "record"},
    "__main__": {"cli", "runcmd"},
    "cli": {
        "commands",
        "check",
        "fleet",
        "record",
        "ring",
        "config",
        "errors",
        "text",
        "types",
        "runcmd",
    },
}


def test_the_top_level_stays_small_and_every_module_has_its_rule() -> None:
    modules = {p.stem for p in PKG.glob("*.py")}
    assert len(modules) <= 8, sorted(modules)
    assert modules == set(TOP_LEVEL), "give a new top-level module its line in TOP_LEVEL"


@pytest.mark.parametrize("module", sorted(TOP_LEVEL))
def test_each_top_level_module_imports_only_what_its_rule_allows(module: str) -> None:
    path = PKG / f"{module}.py"
    allowed = TOP_LEVEL[module] | {None, "__version__"}
    wrong = sorted(
        f"kmsgd/{module}.py imports {m}" for m in imports_of(path) if _stage(m) not in allowed
    )
    assert not wrong


def test_the_daemon_carries_no_post_mortem_code() -> None:
    """`kmsgd run` runs for months on a locked budget: no click, classifier, parser or
    renderer (kmsgd.__main__ sends `run` to kmsgd.runcmd before anything imports click)."""
    daemon = closure("kmsgd.runcmd")
    assert not any(m == "click" or m.startswith("click.") for m in _third_party("kmsgd.runcmd"))
    banned = {"judge", "report", "logparse", "catalogue", "commands", "cli"}
    assert not sorted(m for m in daemon if _stage(m) in banned)


def _third_party(start: str) -> set[str]:
    return {
        m
        for name in closure(start)
        for m in imports_of(module_path(name))  # type: ignore[arg-type]
        if not m.startswith("kmsgd")
    }


def test_the_post_mortem_never_reaches_into_the_recorder() -> None:
    """Data flows one way: the post-mortem reads rings, it never drives the capture path."""
    for start in ("kmsgd.commands.lastboot", "kmsgd.commands.analyze"):
        reach = closure(start)
        assert not sorted(m for m in reach if _stage(m) in {"record", "sensors"})


@pytest.mark.parametrize(
    ("library", "allowed"),
    [
        ("click", {"kmsgd/cli.py"}),
        ("pyudev", {"kmsgd/sensors/udev.py"}),
        (
            "systemd",
            {
                "kmsgd/logparse/systemd_journal.py",
                "kmsgd/record/notify.py",
                "kmsgd/record/log.py",  # the daemon's own log entries (journal.send)
                "kmsgd/report/publish.py",
                "kmsgd/fleet/source.py",
            },
        ),
        ("pynvml", {"kmsgd/sensors/nvml.py"}),
        ("matplotlib", {"kmsgd/report/plot.py"}),  # the optional `plot` extra
    ],
)
def test_one_adapter_per_system_library(library: str, allowed: set[str]) -> None:
    users = {
        str(p.relative_to(ROOT))
        for p in PKG.rglob("*.py")
        if any(m == library or m.startswith(library + ".") for m in imports_of(p))
    }
    assert users <= allowed


def _tool(name: str) -> str:
    exe = BIN / name
    if exe.exists():
        return str(exe)
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (it comes with the test extra: pip install .[test])")
    return found


@pytest.mark.parametrize(
    "argv",
    [
        ("ruff", "check", "kmsgd", "tests", "bench", "lab"),
        ("ruff", "format", "--check", "kmsgd", "tests", "bench", "lab"),
        ("mypy",),
    ],
    ids=["ruff-check", "ruff-format", "mypy-strict"],
)
def test_linters_and_types(argv: tuple[str, ...]) -> None:
    out = subprocess.run(
        [_tool(argv[0]), *argv[1:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
