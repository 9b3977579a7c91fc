"""What the catalogue and the judge make of a few written lines: the helpers the wording
tests share (a line as the kernel printed it, a short sequence of them one second apart)."""

from __future__ import annotations

import io
from collections.abc import Callable

from kmsgd.catalogue.table import match_record
from kmsgd.commands.analyze import analyze_report
from kmsgd.judge.classify import classify
from kmsgd.judge.timeline import Timeline
from kmsgd.ring.records import KernelRecord

Table = dict[str, tuple[list[str], list[str]]]


def tags_of(line: str, facility: int = 0) -> set[str]:
    """The tags the catalogue gives one line (the kernel's, or a program's at facility 3)."""
    return {h.tag for h in match_record(KernelRecord(line, facility=facility))}


def primary_of(*messages: str) -> str | None:
    """The culprit the judge names for kernel lines printed one second apart."""
    recs = [KernelRecord(m, 3, 0, n, n * 1_000_000, "-") for n, m in enumerate(messages, 1)]
    verdict = classify(Timeline.from_records(recs))
    return verdict.primary.tag if verdict.primary else None


def paste_primary(text: str) -> str | None:
    """The culprit `kmsgd analyze` names for a pasted log."""
    p = analyze_report(io.BytesIO(text.encode()), name="paste")[0].primary
    return p.tag if p is not None else None


def check_wording(table: Table, tag: str, tagger: Callable[[str], set[str]] = tags_of) -> None:
    """Every positive line of `tag` in `table` is tagged with it, and no negative line is;
    `tagger` reads a line the way its table is written (a stamp, a program's line)."""
    positives, negatives = table[tag]
    for line in positives:
        assert tag in tagger(line), line
    for line in negatives:
        assert tag not in tagger(line), line
