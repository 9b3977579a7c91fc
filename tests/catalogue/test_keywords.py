"""No catalogue entry keys on a word that routine lines are full of.

Every line holding one of an entry's trigger words leaves `analyze`'s whole-block skim for a
per-line step and is tried against that entry's regex (kmsgd/judge/skim.py,
kmsgd/catalogue/table.py); a trigger word on one routine line in twenty costs a 100 MiB log
that many regex tries, for nothing. The words to avoid come from data
(bench/keyword_cost.py `routine_words`): the commonest words of the lines no entry tags, in
the corpus's routine logs and the analyze bench's input, that are at least twice as common
there as on the lines the catalogue tags. `python -m bench.keyword_cost` shows what each word costs.
"""

from __future__ import annotations

import re
from functools import cache

from bench.keyword_cost import routine_words
from kmsgd.catalogue.base import Signature
from kmsgd.catalogue.table import CATALOGUE, WORD_SPLIT

_CONVERSION = re.compile(r"%[-+ #0-9.*]*[a-zA-Z]+")


@cache
def _routine() -> dict[str, tuple[float, float]]:
    return routine_words()


def _rarer_words(s: Signature, avoid: dict[str, tuple[float, float]]) -> list[str]:
    """Words of the entry's own format strings (their fixed text, not the conversions) that
    routine lines are not full of, those of most of its formats first: what to key it on."""
    counts: dict[str, int] = {}
    for f in s.formats:
        fixed = _CONVERSION.sub(" ", f.fmt)
        words = set(fixed.translate(WORD_SPLIT).split())
        for w in words:
            if w not in avoid and not w.isdigit() and len(w) > 2:
                counts[w] = counts.get(w, 0) + 1
    return sorted(counts, key=lambda w: (-counts[w], w))[:6]


def test_no_entry_keys_on_a_routine_word() -> None:
    routine = _routine()
    bad = []
    for s in CATALOGUE:
        for w in s.keywords:
            if w in routine:
                share, tagged = routine[w]
                bad.append(
                    f"{s.tag}: trigger word {w!r} is on {share:.1%} of routine lines "
                    f"(of tagged lines: {tagged:.1%}); key it on a rarer word of its lines, "
                    f"e.g. one of {_rarer_words(s, routine)}"
                )
    assert not bad, "\n".join(bad)


def test_the_routine_words_are_the_common_ones() -> None:
    # the stop-list is made of what boot logs repeat, not of failure wording
    routine = _routine()
    assert {"usb", "USB", "Bluetooth", "audit", "Started"} <= set(routine)
    assert not {"failed", "error", "timeout"} & set(routine)
