"""Score `kmsgd analyze` on the real-world corpus (tests/corpus/README.md).

`python -m tests.corpus.score` prints the table and every miss; test_corpus.py runs the same
scoring and fails only when a figure drops below tests/corpus/score-floor.toml.
"""

from __future__ import annotations

import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from kmsgd.commands.analyze import analyze_report
from kmsgd.errors import BadInput

CORPUS = Path(__file__).parent


@dataclass(slots=True)
class CaseResult:
    """One case: what the label says and what kmsgd said."""

    slug: str
    want_primary: str
    got_primary: str
    want_outcome: str
    got_outcome: str
    decided: bool
    want_tags: frozenset[str]
    got_tags: frozenset[str]
    refused: str = ""  # the BadInput message when kmsgd refused the log

    @property
    def primary_ok(self) -> bool:
        return self.want_primary == self.got_primary

    @property
    def missed_tags(self) -> frozenset[str]:
        return self.want_tags - self.got_tags


@dataclass(slots=True)
class Score:
    cases: list[CaseResult] = field(default_factory=list)

    @property
    def n(self) -> int:
        return len(self.cases)

    @property
    def primary(self) -> float:
        return sum(c.primary_ok for c in self.cases) / max(1, self.n)

    @property
    def recall(self) -> float:
        want = sum(len(c.want_tags) for c in self.cases)
        missed = sum(len(c.missed_tags) for c in self.cases)
        return (want - missed) / max(1, want)

    @property
    def decided(self) -> list[CaseResult]:
        return [c for c in self.cases if c.decided]

    @property
    def outcome(self) -> float:
        dec = self.decided
        return sum(c.want_outcome == c.got_outcome for c in dec) / max(1, len(dec))

    @property
    def refusals(self) -> int:
        return sum(bool(c.refused) for c in self.cases)


def cases(batch: int | None = None) -> list[Path]:
    """Case directories that are complete (a log and a label); with `batch`, only the cases
    whose label names that batch (the cases labelled before `batch` was a key are batch 0)."""
    found = sorted(
        d for d in CORPUS.iterdir() if (d / "log.txt").is_file() and (d / "label.toml").is_file()
    )
    if batch is None:
        return found
    return [d for d in found if _label(d).get("batch", 0) == batch]


def _label(case: Path) -> dict[str, object]:
    return tomllib.loads((case / "label.toml").read_text(encoding="utf-8"))


def score_case(case: Path) -> CaseResult:
    label = _label(case)
    res = CaseResult(
        slug=case.name,
        want_primary=str(label.get("primary", "")),
        got_primary="",
        want_outcome=str(label.get("outcome", "")),
        got_outcome="",
        decided=bool(label.get("outcome_decided_by_text", False)),
        want_tags=frozenset(str(t) for t in label.get("signatures", [])),
        got_tags=frozenset(),
    )
    try:
        with (case / "log.txt").open("rb") as f:
            report, _ = analyze_report(f, name=case.name)
    except BadInput as err:
        res.refused = str(err)
        return res
    res.got_primary = report.primary.tag if report.primary else ""
    res.got_outcome = report.outcome.value
    res.got_tags = frozenset(s.tag for s in report.signatures)
    return res


def score(paths: list[Path] | None = None) -> Score:
    return Score([score_case(p) for p in (paths if paths is not None else cases())])


def table(s: Score) -> str:
    """The figures as a Markdown table."""
    dec = s.decided
    rows = [
        "| measure | score |",
        "|---|---|",
        f"| cases | {s.n} |",
        f"| primary accuracy | {s.primary:.1%} ({sum(c.primary_ok for c in s.cases)}/{s.n}) |",
        f"| signature recall | {s.recall:.1%} |",
        f"| outcome accuracy (decided by text) | {s.outcome:.1%} "
        f"({sum(c.want_outcome == c.got_outcome for c in dec)}/{len(dec)}) |",
        f"| refusals | {s.refusals} |",
    ]
    return "\n".join(rows)


def misses(s: Score) -> str:
    out = []
    for c in s.cases:
        bits = []
        if c.refused:
            bits.append(f"refused: {c.refused}")
        if not c.primary_ok:
            bits.append(f"primary {c.got_primary or '-'} (want {c.want_primary or '-'})")
        if c.missed_tags:
            bits.append(f"missed {', '.join(sorted(c.missed_tags))}")
        if c.decided and c.want_outcome != c.got_outcome:
            bits.append(f"outcome {c.got_outcome or '-'} (want {c.want_outcome})")
        if bits:
            out.append(f"{c.slug}: " + "; ".join(bits))
    return "\n".join(out)


def by_batch() -> str:
    """One Markdown row per batch and one for all: the figures docs/accuracy.md shows."""
    batches = sorted({int(str(_label(c).get("batch", 0))) for c in cases()})
    rows = [
        "| batch | cases | primary | recall | outcome (decided) | refusals |",
        "|---|---|---|---|---|---|",
    ]
    for name, s in [*((str(b), score(cases(b))) for b in batches), ("all", score())]:
        ok = sum(c.primary_ok for c in s.cases)
        dec = s.decided
        right = sum(c.want_outcome == c.got_outcome for c in dec)
        rows.append(
            f"| {name} | {s.n} | {s.primary:.1%} ({ok}/{s.n}) | {s.recall:.1%} | "
            f"{right}/{len(dec)} | {s.refusals} |"
        )
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    """`python -m tests.corpus.score [--batch N | --by-batch | CASE...]`: the table and every
    miss, or one row per batch."""
    if argv == ["--by-batch"]:
        print(by_batch())
        return 0
    if argv[:1] == ["--batch"] and len(argv) == 2 and argv[1].isdigit():
        paths: list[Path] | None = cases(int(argv[1]))
    elif argv and argv[0].startswith("-"):
        print(
            "usage: python -m tests.corpus.score [--batch N | --by-batch | CASE...]",
            file=sys.stderr,
        )
        return 2
    else:
        paths = [Path(a) for a in argv] or None
    result = score(paths)
    print(misses(result))
    print(table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
