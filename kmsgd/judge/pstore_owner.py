"""Which boot wrote a pstore dump, at judge time: the dump's last lines are compared with each
boot's last kernel records (the dump record type: ring/pstore.py).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kmsgd.ring.pstore import PstoreDump
from kmsgd.ring.records import KernelRecord
from kmsgd.types import Confidence

DUMP_TAIL = 200  # dump lines compared; the dump's end is what the ring may also hold
BOOT_TAIL = 4000  # ring records compared per boot; the dump holds ~10-128 KiB of log


class Method(enum.StrEnum):
    """How the boot that wrote a dump was found."""

    TAIL_MATCH = "tail_match"  # the dump's last lines are that boot's kernel records
    FALLBACK_PREVIOUS = "fallback_previous"  # nothing matched: the boot before the importing one
    NONE = "none"


@dataclass(frozen=True, slots=True)
class Attribution:
    """Which boot wrote a dump, how that was decided and how sure it is."""

    boot_id: str | None
    method: Method
    confidence: Confidence
    matched: int  # dump lines (stamp + text) found among that boot's kernel records
    compared: int  # dump lines with a stamp that could be compared
    detail: str


def _keys(records: Iterable[KernelRecord]) -> set[tuple[int, str]]:
    """(printk stamp, text) per line; stamp 0 is left out, every boot has such lines."""
    keys: set[tuple[int, str]] = set()
    for r in records:
        if r.ts_usec:
            keys.update((r.ts_usec, part.strip()) for part in r.message.split("\n"))
    return keys


def _before(boots: Sequence[str], importing_boot: str | None) -> str | None:
    if importing_boot in boots:
        i = boots.index(importing_boot)
        return boots[i - 1] if i > 0 else None
    return boots[-1] if boots else None


def attribute_detail(
    dump: PstoreDump,
    boots: Mapping[str, Sequence[KernelRecord]],
    *,
    importing_boot: str | None = None,
) -> Attribution:
    """Match the dump's last lines against each boot's last kernel records (oldest boot first).

    pstore carries no boot id, and EFI/ramoops ids restart, so the lines are the evidence.
    Without a match: the boot before `importing_boot` (or the last boot given), low confidence.
    """
    wanted = _keys(dump.records[-DUMP_TAIL:])
    scores = sorted(
        ((len(wanted & _keys(recs[-BOOT_TAIL:])), boot) for boot, recs in boots.items()),
        reverse=True,
    )
    best, boot = scores[0] if scores else (0, "")
    second = scores[1][0] if len(scores) > 1 else 0
    if best and best > second:
        sure = Confidence.HIGH if best >= 3 and best >= 2 * second else Confidence.MEDIUM
        return Attribution(
            boot, Method.TAIL_MATCH, sure, best, len(wanted),
            f"{best} of the dump's last {len(wanted)} stamped lines are in boot {boot}",
        )  # fmt: skip
    fallback = _before(list(boots), importing_boot)
    why = "no boot's kernel records match" if not best else f"{best} lines match several boots"
    if fallback is None:
        return Attribution(None, Method.NONE, Confidence.LOW, best, len(wanted), why)
    return Attribution(
        fallback, Method.FALLBACK_PREVIOUS, Confidence.LOW, 0, len(wanted),
        f"{why}; assumed the boot before the one that imported it",
    )  # fmt: skip


def attribute(
    dump: PstoreDump,
    boots: Mapping[str, Sequence[KernelRecord]],
    *,
    importing_boot: str | None = None,
) -> str | None:
    """The boot id `attribute_detail` settles on (None when there is no candidate)."""
    return attribute_detail(dump, boots, importing_boot=importing_boot).boot_id
