"""Every report kmsgd makes for the corpus and the played boots is the one recorded in
tests/golden/digests.txt: a refactor changes no report. A change meant to change reports
regenerates the digests (tests/golden/README.md) and says so."""

from __future__ import annotations

import pytest

from tests.golden import changed, compute, read


@pytest.mark.slow  # every corpus case in every format: about 40 s
def test_every_report_is_the_one_recorded() -> None:
    diff = changed(read(), compute())
    assert not diff, (
        f"{len(diff)} reports differ from tests/golden/digests.txt:\n"
        + "\n".join(diff[:200])
        + "\n(meant to change them? python -m tests.golden --update, and say so in the commit)"
    )


def test_digest_file_is_sorted_one_line_per_report() -> None:
    names = list(read())
    assert names == sorted(names) and len(names) == len(set(names))
