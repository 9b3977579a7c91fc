"""Score `kmsgd analyze` on the real-world corpus on every run; fail only on a regression.

Each batch of cases (tests/corpus/README.md, `batch`) has its own floor in score-floor.toml
beside this file, so a new batch that kmsgd does not yet get right is added at its
first-contact score without lowering the floor of the batches before it. Raise a floor when
the score improves; never lower one. `python -m tests.corpus.score` prints every miss;
docs/accuracy.md explains them.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests.corpus.score import cases, misses, score, table

FLOOR = Path(__file__).with_name("score-floor.toml")
FLOORS: dict[str, dict[str, float]] = tomllib.loads(FLOOR.read_text())["batch"]


@pytest.mark.parametrize("batch", sorted(FLOORS, key=int))
def test_corpus_score_does_not_regress(batch: str) -> None:
    floor = FLOORS[batch]
    result = score(cases(int(batch)))
    print("\n" + table(result) + "\n" + misses(result))
    assert result.n >= floor["cases"]
    assert result.primary >= floor["primary"], table(result)
    assert result.recall >= floor["recall"], table(result)
    assert result.outcome >= floor["outcome"], table(result)
    assert result.refusals <= floor["refusals"], misses(result)


def test_every_batch_has_a_floor() -> None:
    labelled = {str(tomllib.loads((c / "label.toml").read_text()).get("batch", 0)) for c in cases()}
    assert labelled <= set(FLOORS), f"batches without a floor: {sorted(labelled - set(FLOORS))}"
