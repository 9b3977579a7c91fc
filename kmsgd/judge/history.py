"""What a ring's earlier boots say about the one judged: how often each signature came on
healthy boots (the noise baseline), and whether the last few boots died young at the same point
(a boot loop). Reads the ring through its skim, decoding only kernel and stop records.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from kmsgd.catalogue.table import find_signatures
from kmsgd.judge.bootview import BootView, kernel_records
from kmsgd.ring import frame
from kmsgd.ring.reader import RingReader
from kmsgd.ring.records import KIND_CODES, KernelRecord, Kind, Stop

HEALTHY_RUN_S = 3600.0  # an earlier boot this long counts as healthy for the noise baseline
BASELINE_BOOTS = 5
LOOP_BOOT_S = 90.0
_KERNEL_CODE, _STOP_CODE = KIND_CODES[Kind.KERNEL], KIND_CODES[Kind.STOP]


def healthy_baseline(reader: RingReader, earlier: Sequence[str]) -> dict[str, float]:
    """Occurrences per hour of each tag on the newest earlier boots (at most BASELINE_BOOTS)
    that ended cleanly or ran long."""
    counts: dict[str, int] = {}
    hours = 0.0
    taken = 0
    for boot_id in reversed(earlier):
        tags, span_s, clean = _boot_tags(reader, boot_id)
        if not (clean or span_s >= HEALTHY_RUN_S):
            continue
        hours += max(span_s / 3600, 1 / 60)
        for tag, n in tags.items():
            counts[tag] = counts.get(tag, 0) + n
        taken += 1
        if taken >= BASELINE_BOOTS:
            break
    return {tag: n / hours for tag, n in counts.items()} if hours else {}


def _boot_tags(reader: RingReader, boot_id: str) -> tuple[dict[str, int], float, bool]:
    """In one pass over a boot: its tag counts, its length in seconds, whether it ended
    with a stop record written while the system shut down."""
    first: list[int] = []
    last = [0]
    clean = [False]

    def records() -> Iterator[KernelRecord]:
        for h in reader.skim_of(boot_id):
            if not first:
                first.append(h.wall_us)
            last[0] = h.wall_us
            clean[0] = False
            if h.code == _KERNEL_CODE or h.code == _STOP_CODE:
                f = reader.check(h)
                e = frame.to_entry(f) if f is not None else None
                if e is not None and isinstance(e.data, KernelRecord):
                    yield e.data
                elif e is not None and isinstance(e.data, Stop):
                    clean[0] = e.data.shutting_down

    # counted as the timeline counts them: a report's context lines (Signature.context) show
    # its event and never count it again, so a healthy boot's rate compares with this one's
    counted: dict[str, int] = {}
    for hit in find_signatures(records()):
        n = counted.get(hit.tag, 0)
        counted[hit.tag] = n if hit.signature.context else n + 1
    tags = {tag: max(1, n) for tag, n in counted.items()}
    span_s = (last[0] - first[0]) / 1e6 if first else 0.0
    return tags, span_s, clean[0]


def loop_notes(reader: RingReader, ids: Sequence[str], i: int, view: BootView) -> list[str]:
    """Consecutive short boots that ended abruptly at the same point (looked for only when
    the judged boot itself was short)."""
    live = view.live
    if live.stop is not None or (live.last_wall_us or 0) - (live.first_wall_us or 0) > (
        LOOP_BOOT_S * 1e6
    ):
        return []
    recent = [s for s in map(reader.summary_of, ids[max(0, i - 3) : i + 1]) if s is not None]
    short = [
        r
        for r in recent
        if not r.stopped and (r.last_wall_us - r.first_wall_us) / 1e6 <= LOOP_BOOT_S
    ]
    if len(short) < 3:
        return []
    lasts = []
    for r in short:
        kernel = [k.message for k in kernel_records(reader, r.boot_id) if not k.facility]
        lasts.append(kernel[-1] if kernel else "")
    top = max(set(lasts), key=lasts.count)
    where = f", each right after `{top}`" if top and lasts.count(top) >= 3 else ""
    return [
        f"boot loop: {len(short)} of the last {len(recent)} boots ended within "
        f"{LOOP_BOOT_S:.0f} s of start{where}"
    ]
