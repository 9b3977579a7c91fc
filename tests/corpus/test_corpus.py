"""Score `kmsgd analyze` on the real-world corpus on every run; fail only on a regression.

The floor figures live in score-floor.toml beside this file: raise them when the score
improves. `python -m tests.corpus.score` prints every miss; docs/accuracy.md explains them.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from tests.corpus.score import misses, score, table

FLOOR = Path(__file__).with_name("score-floor.toml")


def test_corpus_score_does_not_regress(capsys: object) -> None:
    floor = tomllib.loads(FLOOR.read_text())
    result = score()
    print("\n" + table(result) + "\n" + misses(result))
    assert result.n >= floor["cases"]
    assert result.primary >= floor["primary"], table(result)
    assert result.recall >= floor["recall"], table(result)
    assert result.outcome >= floor["outcome"], table(result)
    assert result.refusals <= floor["refusals"], misses(result)
