"""No untyped shape crosses a package boundary: a public name of kmsgd that another package
uses (a function, a class's fields and public methods, a type alias) takes and returns typed
values, never `dict[str, Any]`, `Mapping[str, Any]` or `Callable[..., None]`. Read from the
source (ast): what is used is what another package's modules import from it, or reach as
`module.name`. The exceptions below say why they stay."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "kmsgd"
UNTYPED = ("dict[str, Any]", "Mapping[str, Any]", "Callable[..., None]")

# The ring's JSON codec: the object json.loads gives and json.dumps takes for one record,
# written and read by ring/frame.py and ring/payloads.py; every reader gets the typed value.
CODEC = ("to_payload", "from_payload")
# The incident snapshots: procfs and sysfs reads kept as the JSON objects the `procs` and
# `gpus` records hold (ring/incident.py reads what the judge needs of them).
EXCEPTIONS = {
    "kmsgd.sensors.snapshot.snapshot_procs": "incident snapshot",
    "kmsgd.sensors.gpu_snapshot.snapshot_gpus": "incident snapshot",
}


def _module(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _package(module: str) -> str:
    """`kmsgd.ring.frame` -> `ring`; a top-level module is a package of its own."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _trees() -> dict[str, ast.Module]:
    return {_module(p): ast.parse(p.read_text()) for p in PKG.rglob("*.py")}


def crossing_names(trees: dict[str, ast.Module]) -> set[tuple[str, str]]:
    """(module, name) of every name a module of another package uses."""
    out: set[tuple[str, str]] = set()
    for mod, tree in trees.items():
        aliases: dict[str, str] = {}  # local name -> kmsgd module it stands for
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    full = f"{node.module}.{a.name}"
                    if full in trees:
                        aliases[a.asname or a.name] = full
                    elif node.module in trees and _package(node.module) != _package(mod):
                        out.add((node.module, a.name))
            elif isinstance(node, ast.Import):
                aliases |= {a.asname or a.name: a.name for a in node.names if a.name in trees}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and _package(aliases[node.value.id]) != _package(mod)
            ):
                out.add((aliases[node.value.id], node.attr))
    return out


def _untyped(node: ast.expr | None) -> list[str]:
    text = ast.unparse(node) if node is not None else ""
    return [u for u in UNTYPED if u in text]


def _signature(f: ast.FunctionDef | ast.AsyncFunctionDef, where: str) -> list[str]:
    a = f.args
    params = [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
    out = [f"{where}({p.arg}): {u}" for p in params if p for u in _untyped(p.annotation)]
    return out + [f"{where} -> {u}" for u in _untyped(f.returns)]


def _members(cls: ast.ClassDef, mod: str, where: str) -> dict[str, list[str]]:
    """A class's public fields and methods (the ring's codec methods left out: see CODEC)."""
    found: dict[str, list[str]] = {}
    for item in cls.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            at = f"{where}.{item.target.id}"
            if not item.target.id.startswith("_"):
                found[at] = [f"{at}: {u}" for u in _untyped(item.annotation)]
        elif isinstance(item, ast.FunctionDef) and not item.name.startswith("_"):
            codec = item.name in CODEC and mod.startswith("kmsgd.ring.")
            if not codec:
                found[f"{where}.{item.name}"] = _signature(item, f"{where}.{item.name}")
    return found


def untyped_crossings(trees: dict[str, ast.Module]) -> dict[str, list[str]]:
    """Qualified name -> what is untyped in it, for every name that crosses a boundary."""
    found: dict[str, list[str]] = {}
    for mod, name in crossing_names(trees):
        where = f"{mod}.{name}"
        for node in trees[mod].body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
                found[where] = _signature(node, where)
            elif isinstance(node, ast.ClassDef) and node.name == name:
                found |= _members(node, mod, where)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                    found[where] = [f"{where} = {u}" for u in _untyped(node.value)]
    return {k: v for k, v in found.items() if v}


@functools.cache
def _found() -> dict[str, list[str]]:
    return untyped_crossings(_trees())


def test_no_untyped_shape_crosses_a_package_boundary() -> None:
    found = _found()
    unexplained = sorted(
        hit for name, hits in found.items() if name not in EXCEPTIONS for hit in hits
    )
    assert not unexplained, "\n".join(unexplained)


def test_every_exception_is_still_needed() -> None:
    found = _found()
    assert sorted(set(EXCEPTIONS) - set(found)) == []


def test_the_check_sees_a_crossing() -> None:
    """The scan itself: an untyped signature used from another package is found, the same
    signature used only inside its own package is not."""
    trees = {
        "kmsgd.ring.x": ast.parse(
            "from typing import Any\n"
            "def shared(d: dict[str, Any]) -> None: ...\n"
            "def local(d: dict[str, Any]) -> None: ...\n"
            "class Rec:\n    data: Mapping[str, Any]\n"
        ),
        "kmsgd.ring.y": ast.parse("from kmsgd.ring.x import local\n"),
        "kmsgd.judge.z": ast.parse("from kmsgd.ring import x\nx.shared({})\nx.Rec\n"),
        "kmsgd.ring": ast.parse(""),
    }
    found = untyped_crossings(trees)
    assert sorted(found) == ["kmsgd.ring.x.Rec.data", "kmsgd.ring.x.shared"]
