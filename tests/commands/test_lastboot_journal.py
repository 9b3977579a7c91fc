"""The journal as a second witness for `last-boot`, from real journal files."""

from __future__ import annotations

from pathlib import Path

from journals import POWEROFF, TYPED
from scenario import Machine

from kmsgd.commands import lastboot
from kmsgd.report.model import Report
from kmsgd.ring.reader import RingReader


def judge(m: Machine, journal: Path) -> Report:
    opts = lastboot.Options(m.boots[-1].boot_id, journal=True, journal_dir=str(journal))
    with RingReader(str(m.ring)) as r:
        return lastboot.report(r, None, opts)


def test_journal_says_clean_where_the_ring_has_no_stop(journal_dir: Path) -> None:
    m = Machine(journal_dir.parent / "m1")
    b = m.boot(boot_id=POWEROFF)
    b.run(20)
    b.die()  # the recorder died before the shutdown reached it
    m.boot(after_s=30)
    rep = judge(m, journal_dir)
    assert rep.outcome == "clean_shutdown" and rep.confidence == "medium"
    assert "journal" in rep.headline


def test_typed_shutdown_words_in_the_journal_do_not_make_it_clean(
    journal_dir: Path,
) -> None:
    m = Machine(journal_dir.parent / "m2")
    b = m.boot(boot_id=TYPED)
    b.run(20)
    b.die()
    m.boot(after_s=30)
    rep = judge(m, journal_dir)
    assert rep.outcome == "abrupt_reset_or_power_loss"
