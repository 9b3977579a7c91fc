"""One vocabulary of signature tags (kmsgd/catalogue/tags.py): the tags the catalogue's entries
define, named by their `Tag` member everywhere else in kmsgd/, so that a misspelt tag fails
at import instead of matching nothing."""

from __future__ import annotations

import ast
import enum
from collections.abc import Iterator
from pathlib import Path

from kmsgd.catalogue.table import CATALOGUE
from kmsgd.catalogue.tags import Tag

PKG = Path(__file__).resolve().parents[2] / "kmsgd"
VOCABULARY = PKG / "catalogue" / "tags.py"
# The daemon's own copy of the incident triggers: the recorder may not import the catalogue
# (tests/test_code_rules.py), and tests/record/test_triggers.py keeps the copy equal.
DAEMON_COPY = PKG / "record" / "triggers.py"


def entry_modules() -> set[Path]:
    """The catalogue's family modules: those that define a `*_SIGNATURES` tuple of entries."""
    out = set()
    for path in (PKG / "catalogue").glob("*.py"):
        for node in ast.parse(path.read_text()).body:
            targets = [node.target] if isinstance(node, ast.AnnAssign) else []
            targets += node.targets if isinstance(node, ast.Assign) else []
            if any(isinstance(t, ast.Name) and t.id.endswith("_SIGNATURES") for t in targets):
                out.add(path)
    return out


def _enum_member_values(tree: ast.Module) -> set[int]:
    """ids of the constants that are the values of another StrEnum's members (Outcome's
    `kernel_panic`, a pstore dump's reason `oops`): the same word in another vocabulary."""
    out: set[int] = set()
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef) and any(
            isinstance(b, ast.Attribute) and b.attr.endswith("Enum") for b in cls.bases
        ):
            for stmt in cls.body:
                if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant):
                    out.add(id(stmt.value))
    return out


def spelt_tags(path: Path) -> Iterator[tuple[int, int, int, str]]:
    """(line, column, end column, tag) of every string constant in `path` that is a tag."""
    tags = {t.value for t in Tag}
    tree = ast.parse(path.read_text())
    skip = _enum_member_values(tree)
    in_fstrings = {id(c) for j in ast.walk(tree) if isinstance(j, ast.JoinedStr) for c in j.values}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value in tags
            and id(node) not in skip | in_fstrings
        ):
            assert node.end_col_offset is not None
            yield node.lineno, node.col_offset, node.end_col_offset, node.value


def checked_modules() -> list[Path]:
    exempt = entry_modules() | {VOCABULARY, DAEMON_COPY}
    return sorted(p for p in PKG.rglob("*.py") if p not in exempt)


def test_the_vocabulary_is_the_set_of_tags_the_catalogue_defines() -> None:
    defined = {s.tag for s in CATALOGUE}
    listed = {t.value for t in Tag}
    add = [f'    {t.upper()} = "{t}"' for t in sorted(defined - listed)]
    gone = [f"    {t.upper()}" for t in sorted(listed - defined)]
    assert not add, (
        "a catalogue entry has a new tag: add to class Tag in kmsgd/catalogue/tags.py\n"
        + "\n".join(add)
    )
    assert not gone, (
        "no catalogue entry has these tags: remove from kmsgd/catalogue/tags.py\n" + "\n".join(gone)
    )


def test_the_vocabulary_is_sorted_and_named_by_its_values() -> None:
    assert [t.value for t in Tag] == sorted(t.value for t in Tag)
    assert all(t.name == t.value.upper() for t in Tag)
    assert issubclass(Tag, enum.StrEnum)


def test_no_tag_is_spelt_as_a_string_outside_the_entries_and_the_vocabulary() -> None:
    found = [
        f"{path.relative_to(PKG.parent)}:{line}: {tag!r}: write Tag.{tag.upper()} "
        "(from kmsgd.catalogue.tags import Tag)"
        for path in checked_modules()
        for line, _, _, tag in spelt_tags(path)
    ]
    assert not found, "\n".join(found)
