"""A whole boot's sample headers thinned as they stream by, for a picture that starts long
before the boot's last minutes (an incident opened hours before the end).

At most `per` headers are kept in each of at most `buckets` equal time buckets; when the boot
outgrows the buckets their width doubles and neighbours merge, so memory stays bounded however
long the boot, in the same single pass that reads everything else (judge/bootview.py). Kernel
records are only counted, per bucket, for the lines' density.
"""

from __future__ import annotations

from kmsgd.ring.layout import Skimmed

THIN_BUCKETS = 600
THIN_PER_BUCKET = 12  # a box's devices and memory each write one sample a second


class Thinner:
    def __init__(self, buckets: int, per: int, width_us: int = 1_000_000) -> None:
        self.buckets = buckets
        self.per = per
        self.width_us = width_us
        self.start_us: int | None = None
        self.kept: dict[int, list[Skimmed]] = {}
        self.kernel: dict[int, int] = {}

    def _bucket(self, wall_us: int) -> int:
        if self.start_us is None:
            self.start_us = wall_us
        k = max(0, (wall_us - self.start_us) // self.width_us)  # a clock set back: bucket 0
        while k >= self.buckets:
            self.width_us *= 2
            kept: dict[int, list[Skimmed]] = {}
            for j, hs in self.kept.items():
                kept.setdefault(j // 2, []).extend(hs)
            self.kept = {j: hs[: self.per] for j, hs in kept.items()}
            counts: dict[int, int] = {}
            for j, n in self.kernel.items():
                counts[j // 2] = counts.get(j // 2, 0) + n
            self.kernel = counts
            k //= 2
        return k

    def add(self, h: Skimmed) -> None:
        """A sample header: kept if its bucket has room."""
        got = self.kept.setdefault(self._bucket(h.wall_us), [])
        if len(got) < self.per:
            got.append(h)

    def count_kernel(self, wall_us: int) -> None:
        k = self._bucket(wall_us)
        self.kernel[k] = self.kernel.get(k, 0) + 1

    def samples(self) -> tuple[Skimmed, ...]:
        """The kept headers in ring order."""
        return tuple(sorted((h for hs in self.kept.values() for h in hs), key=lambda h: h.serial))

    def kernel_counts(self) -> tuple[tuple[int, int], ...]:
        """(bucket start wall µs, kernel records in it), oldest first."""
        start = self.start_us or 0
        return tuple((start + k * self.width_us, n) for k, n in sorted(self.kernel.items()))
