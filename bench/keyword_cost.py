"""Which catalogue trigger words cost `kmsgd analyze` time: the lines each one admits.

A line is tried against the catalogue's regexes only when it holds one of an entry's trigger
words (kmsgd/catalogue/table.py `_BY_WORD`); in the skim (kmsgd/judge/skim.py) each such line
also leaves the whole-block path for a per-line step. A trigger word that routine lines are
full of costs on every line that holds it and finds nothing. This counts, per trigger word,
over the analyze bench's generated inputs (bench/analyze_bench.py) and over the corpus's
routine logs (tests/corpus cases labelled with no primary):

- admitted: lines holding the word (per 1,000 lines of that input, and in all),
- alone: lines no other trigger word admits (what narrowing the word would save),
- matched: admitted lines that one of the word's own entries tags.

A costly word has many lines admitted and few matched; narrow it to a rare word of its
entry's lines (tests/catalogue/test_keywords.py guards the commonest words).

    python -m bench.keyword_cost               # 20 MiB of each bench input, the corpus
    python -m bench.keyword_cost --mb 100 --top 40
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import tomllib
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kmsgd.catalogue.table import _BY_WORD, CATALOGUE, TRIGGERS, WORD_SPLIT, match_text
from kmsgd.logparse import Line, parse_lines

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"


@dataclass
class Cost:
    """Per trigger word counts over one input."""

    lines: int = 0
    admitted: Counter[str] = field(default_factory=Counter)
    alone: Counter[str] = field(default_factory=Counter)
    matched: Counter[str] = field(default_factory=Counter)


def routine_logs() -> list[Path]:
    """The corpus cases whose label names no primary: logs of boots where nothing failed."""
    found = []
    for label in sorted(CORPUS.glob("*/label.toml")):
        log = label.parent / "log.txt"
        if log.is_file() and tomllib.loads(label.read_text(encoding="utf-8")).get("primary") == "":
            found.append(log)
    return found


def messages(lines: Iterable[str]) -> Iterator[tuple[str, int | None, int | None]]:
    """(message, facility, stamp) of each parsed record, as the timeline matches it."""
    for ev in parse_lines(lines):
        if isinstance(ev, Line):
            yield ev.message, ev.facility, ev.ts_usec


def measure(records: Iterable[tuple[str, int | None, int | None]], cost: Cost) -> None:
    """Add each record's trigger words, and whether their entries tag it, to `cost`."""
    seen: dict[tuple[str, int | None], frozenset[int]] = {}
    index = {id(s): i for i, s in enumerate(CATALOGUE)}
    for msg, facility, ts in records:
        cost.lines += 1
        words = TRIGGERS.intersection(msg.translate(WORD_SPLIT).split())
        if not words:
            continue
        key = (msg, facility)
        tagged = seen.get(key)
        if tagged is None:
            hits = match_text(msg, facility, ts, frozenset(words))
            tagged = frozenset(index[id(s)] for _, s, _ in hits)
            if len(seen) > 100_000:
                seen.clear()
            seen[key] = tagged
        for w in words:
            cost.admitted[w] += 1
            if len(words) == 1:
                cost.alone[w] += 1
            if not tagged.isdisjoint(_BY_WORD[w]):
                cost.matched[w] += 1


def bench_input(fmt: str, mb: int) -> Cost:
    """The analyze bench's own input of `mb` MiB in format `fmt`."""
    from bench.analyze_bench import build

    cost = Cost()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{fmt}.txt"
        build(path, mb << 20, fmt=fmt)
        with path.open(encoding="utf-8") as f:
            measure(messages(line.rstrip("\n") for line in f), cost)
    return cost


def corpus_input() -> Cost:
    cost = Cost()
    for log in routine_logs():
        text = log.read_text(encoding="utf-8", errors="replace")
        measure(messages(text.splitlines()), cost)
    return cost


def _word_lines(
    records: Iterable[tuple[str, int | None, int | None]],
) -> tuple[Counter[str], int, Counter[str], int]:
    """(words of the lines no entry tags, how many such lines, words of the tagged lines,
    how many of those): each word counted once a line."""
    plain: Counter[str] = Counter()
    tagged: Counter[str] = Counter()
    n_plain = n_tagged = 0
    for msg, facility, ts in records:
        words = set(msg.translate(WORD_SPLIT).split())
        if match_text(msg, facility, ts):
            tagged.update(words)
            n_tagged += 1
        else:
            plain.update(words)
            n_plain += 1
    return plain, n_plain, tagged, n_tagged


def routine_words(top: int = 300, bench_kib: int = 256) -> dict[str, tuple[float, float]]:
    """The words routine lines are full of: word -> (its share of routine lines, its share of
    the lines the catalogue tags), for the `top` words by share of routine lines, and only
    those at least twice as common on routine lines as on tagged ones (a failure's own words,
    `failed`, `error`, `timeout`, are common on both and not listed; the margin keeps a word
    as common on both, `down`, from coming and going with each new entry).

    Routine lines: the lines no entry tags, of the corpus's routine logs and of the analyze
    bench's inputs (`bench_kib` of each format), each source's share taken apart (the bench
    repeats its few lines a million times; the corpus is 134 short logs). Tagged lines: every
    line of the corpus that some entry tags.
    """
    from bench.analyze_bench import build

    shares: dict[str, float] = {}

    def add(words: Counter[str], n: int) -> None:
        for w, k in words.items():
            shares[w] = max(shares.get(w, 0.0), k / max(n, 1))

    corpus_plain, n = Counter[str](), 0
    for log in routine_logs():
        text = log.read_text(encoding="utf-8", errors="replace")
        plain, k, _, _ = _word_lines(messages(text.splitlines()))
        corpus_plain.update(plain)
        n += k
    add(corpus_plain, n)
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in ("dmesg", "journal"):
            path = Path(tmp) / f"{fmt}.txt"
            build(path, bench_kib << 10, fmt=fmt)
            plain, k, _, _ = _word_lines(messages(path.read_text(encoding="utf-8").splitlines()))
            add(plain, k)
    tagged, n_tagged = Counter[str](), 0
    for log in sorted(CORPUS.glob("*/log.txt")):
        text = log.read_text(encoding="utf-8", errors="replace")
        _, _, words, k = _word_lines(messages(text.splitlines()))
        tagged.update(words)
        n_tagged += k
    ranked = sorted(shares, key=lambda w: -shares[w])[:top]
    return {
        w: (shares[w], tagged[w] / n_tagged) for w in ranked if shares[w] > 2 * tagged[w] / n_tagged
    }


def table(costs: dict[str, Cost], top: int) -> str:
    """The `top` trigger words by lines admitted per 1,000 (the largest over the inputs)."""

    def rate(c: Cost, w: str) -> float:
        return 1000 * c.admitted[w] / max(c.lines, 1)

    words = {w for c in costs.values() for w in c.admitted}
    ranked = sorted(words, key=lambda w: -max(rate(c, w) for c in costs.values()))[:top]
    head = " | ".join(f"{name}: admitted ‰ (n) / alone / matched" for name in costs)
    out = [
        ", ".join(f"{name} {c.lines:,} lines" for name, c in costs.items()),
        f"| word | {head} | entries |",
        "|---|" + "---|" * len(costs) + "---|",
    ]
    for w in ranked:
        cells = " | ".join(
            f"{rate(c, w):.1f} ({c.admitted[w]:,}) / {c.alone[w]:,} / {c.matched[w]:,}"
            for c in costs.values()
        )
        tags = ", ".join(sorted({CATALOGUE[i].tag for i in _BY_WORD[w]}))
        out.append(f"| `{w}` | {cells} | {tags} |")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--mb", type=int, default=20, help="size of each bench input (MiB)")
    ap.add_argument("--top", type=int, default=30, help="how many trigger words to list")
    args = ap.parse_args(argv)
    costs = {
        "bench dmesg": bench_input("dmesg", args.mb),
        "bench journal": bench_input("journal", args.mb),
        "corpus routine": corpus_input(),
    }
    print(table(costs, args.top))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv[1:]))
