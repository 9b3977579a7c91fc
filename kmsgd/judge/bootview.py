"""One boot of the ring, read once into what the post-mortem needs, in bounded memory.

Kernel records stream into a Timeline (bounded head and tail, per-tag counts) and into the
blocked tasks' stacks the kernel printed (judge/stacks.py); heartbeats into Liveness; samples
are kept raw for the final minute only and decoded at the end; rarer records (events,
inventory, sysctl, pstore) are kept whole.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from kmsgd.judge.clocks import EARLY_STEP_S, ClockStep
from kmsgd.judge.liveness import Liveness, LivenessBuilder
from kmsgd.judge.stacks import KernelStack, StackCollector
from kmsgd.judge.telemetry import FINAL_WINDOW_US, MEMORY_WINDOW_US
from kmsgd.judge.thinning import THIN_BUCKETS, THIN_PER_BUCKET, Thinner
from kmsgd.judge.timeline import Timeline, TimelineBuilder
from kmsgd.logparse.parsed import Line, LogFormat, Origin
from kmsgd.ring import frame
from kmsgd.ring.inventory import Inventory
from kmsgd.ring.layout import Skimmed
from kmsgd.ring.reader import RingReader
from kmsgd.ring.records import KIND_CODES, Entry, Heartbeat, KernelRecord, Kind

_MEMORY = b'"sample":"memory"'
EARLY_RECORDS = 300  # kernel records of the next boot that speak about this one
_SAMPLE, _KERNEL = KIND_CODES[Kind.SAMPLE], KIND_CODES[Kind.KERNEL]
_HEARTBEAT = KIND_CODES[Kind.HEARTBEAT]
_INCIDENT = KIND_CODES[Kind.INCIDENT]
KEPT_KINDS = (
    Kind.EVENT,
    Kind.DEVICE,
    Kind.INVENTORY,
    Kind.SYSCTL,
    Kind.PSTORE,
    Kind.LOST,
    Kind.INCIDENT,  # bounded by the recorder: at most 8 MiB an incident
)


@dataclass(frozen=True, slots=True)
class BootView:
    boot_id: str
    timeline: Timeline
    live: Liveness
    final_samples: tuple[Entry, ...]  # samples of the final ~70 s (memory: 10 min)
    kept: tuple[Entry, ...]  # events, device events, inventories, sysctls, pstore, lost
    builder: TimelineBuilder | None = None  # to append lines only a witness saw (pstore)
    stacks: Mapping[int, KernelStack] = field(default_factory=dict)  # blocked tasks, by pid
    # read_boot(recent_us=…): the headers of the samples, and the kernel lines' wall times, of
    # the final `recent_us` (the picture of the last minutes: judge/series.py)
    recent_us: int = 0
    recent: tuple[Skimmed, ...] = ()
    kernel_walls: tuple[int, ...] = ()
    # … and the whole boot's, thinned (judge/thinning.py): for a picture that starts earlier
    thinned: tuple[Skimmed, ...] = ()
    kernel_counts: tuple[tuple[int, int], ...] = ()

    def with_records(self, records: Sequence[KernelRecord]) -> BootView:
        """This view with kernel records appended after the ring's last line (a panic's end
        that reached pstore but not the ring)."""
        if self.builder is None or not records:
            return self
        n = self.timeline.total
        for rec in records:
            n += 1
            self.builder.add(Line.of(rec, Origin.KERNEL, LogFormat.KMSG, n))
        return dataclasses.replace(self, timeline=self.builder.build())

    def of(self, kind: Kind) -> list[Entry]:
        return [e for e in self.kept if e.kind is kind]

    @property
    def kernel_tail(self) -> list[KernelRecord]:
        return [i.line.record for i in self.timeline.tail]


def read_boot(reader: RingReader, boot_id: str, *, index: int = 0, recent_us: int = 0) -> BootView:
    """Everything of one boot in a single pass. Samples are only skimmed (headers): those of
    the final window are checked and decoded at the end; everything else is checked.
    `recent_us`: also keep the sample headers and kernel line times of that final span."""
    tb = TimelineBuilder(index=index, boot_id=boot_id)
    lb = LivenessBuilder()
    sc = StackCollector()
    samples: deque[Skimmed] = deque()
    memory: deque[Skimmed] = deque()
    kernel_walls: deque[int] = deque()
    # the picture starts before its last `recent_us` only from an incident's trigger
    # (judge/series.py: window_start), so the thinner starts at the boot's first incident
    # record: a boot with none pays nothing for it
    thin: Thinner | None = None
    device_span = max(FINAL_WINDOW_US, recent_us)
    memory_span = max(MEMORY_WINDOW_US, recent_us)
    kept: list[Entry] = []
    n = 0
    for h in reader.skim_of(boot_id):
        if h.code == _SAMPLE:
            is_mem = _MEMORY in reader.payload_head(h, 24)
            window, span = (memory, memory_span) if is_mem else (samples, device_span)
            window.append(h)
            if thin is not None:
                thin.add(h)
            while window[0].wall_us < h.wall_us - span:
                window.popleft()
            lb.add_sign_of_life(h.wall_us)
            continue
        if h.code == _INCIDENT and recent_us and thin is None:
            thin = Thinner(THIN_BUCKETS, THIN_PER_BUCKET)
        f = reader.check(h)
        if f is None:
            continue  # damaged: skipped, never misread
        e = frame.to_entry(f)
        lb.add(e)
        if isinstance(e.data, KernelRecord):
            if thin is not None:
                thin.count_kernel(h.wall_us)
            if recent_us:
                kernel_walls.append(h.wall_us)
                while kernel_walls[0] < h.wall_us - recent_us:
                    kernel_walls.popleft()
            n += 1
            origin = Origin.USERSPACE if e.data.facility else Origin.KERNEL
            tb.add(Line.of(e.data, origin, LogFormat.KMSG, n))
            if origin is Origin.KERNEL:
                sc.add(e.data.message)
        elif e.kind in KEPT_KINDS:
            kept.append(e)
    live = lb.build()
    end = live.last_wall_us or 0
    final = []
    mem_serials = {h.serial for h in memory}
    for h in sorted((*samples, *memory), key=lambda h: h.serial):
        span = MEMORY_WINDOW_US if h.serial in mem_serials else FINAL_WINDOW_US
        f = reader.check(h) if h.wall_us >= end - span else None
        if f is not None:
            final.append(frame.to_entry(f))
    recent = (
        tuple(
            h
            for h in sorted((*samples, *memory), key=lambda h: h.serial)
            if h.wall_us >= end - recent_us
        )
        if recent_us
        else ()
    )
    return BootView(
        boot_id,
        tb.build(),
        live,
        tuple(final),
        tuple(kept),
        tb,
        sc.build(),
        recent_us,
        recent,
        tuple(w for w in kernel_walls if w >= end - recent_us),
        thin.samples() if thin is not None else (),
        thin.kernel_counts() if thin is not None else (),
    )


def early_records(reader: RingReader, boot_id: str, limit: int = EARLY_RECORDS) -> list[Entry]:
    """The first entries of a boot (its boot record, first kernel lines, first inventory)."""
    out: list[Entry] = []
    kernel = 0
    for h in reader.skim_of(boot_id):
        f = reader.check(h) if h.code != _SAMPLE else None
        if f is None:
            continue
        e = frame.to_entry(f)
        out.append(e)
        kernel += e.kind is Kind.KERNEL
        if kernel >= limit:
            break
    return out


def early_clock_steps(
    reader: RingReader, boot_id: str, window_s: float = EARLY_STEP_S
) -> tuple[ClockStep, ...]:
    """Clock steps in a boot's first `window_s` seconds (heartbeats only: a bounded read)."""
    live = LivenessBuilder()
    for h in reader.skim_of(boot_id):
        f = reader.check(h) if h.code == _HEARTBEAT else None
        if f is None:
            continue
        e = frame.to_entry(f)
        if isinstance(e.data, Heartbeat):
            live.add(e)
            if e.data.mono_us > window_s * 1e6:
                break
    return tuple(live.steps)


def kernel_records(reader: RingReader, boot_id: str) -> Iterator[KernelRecord]:
    """A boot's kernel records, decoding nothing else."""
    for h in reader.skim_of(boot_id):
        f = reader.check(h) if h.code == _KERNEL else None
        if f is not None:
            e = frame.to_entry(f)
            if isinstance(e.data, KernelRecord):
                yield e.data


def last_inventory(reader: RingReader, boot_id: str) -> Inventory | None:
    """A boot's last inventory, decoding nothing else; None when it has none (or its last
    one is damaged)."""
    code = KIND_CODES[Kind.INVENTORY]
    for h in reversed([h for h in reader.skim_of(boot_id) if h.code == code]):
        f = reader.check(h)
        if f is not None:
            data = frame.to_entry(f).data
            return data if isinstance(data, Inventory) else None
    return None
