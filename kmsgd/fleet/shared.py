"""What a cluster's boxes share: attributes much more common among its bad ends than among
all the fleet's boots in the window.

For an attribute a and a cluster C (docs/fleet.md has the worked example):

    cluster share = bad ends of C with a / bad ends of C        (k_C / n_C)
    fleet share   = boots in the window with a / boots          (k_F / n_F)
    difference    = cluster share - fleet share                 (ranked by this, largest first)

A command-line parameter also counts by its absence ("without iommu=pt"). An attribute is
listed only with enough support: on at least MIN_SUPPORT bad ends and MIN_BOXES boxes of the
cluster, at least MIN_DIFFERENCE above its fleet share, and at least MIN_Z standard errors
above it (z = difference / sqrt(fleet share x (1 - fleet share) / n_C)): a cluster of 16
random bad ends shows differences of 25 points by chance, which z keeps out, while 12 of 12
without `iommu=pt`, where 40 % of the fleet's boots lack it, passes (z 4.2). The difference,
not the ratio, is ranked: a ratio rewards rarity (3 of 3 against 0.1 % of the fleet is a
ratio of 1000 and says little); a difference rewards what covers the cluster and sets it
apart. Shares are over post-mortems that carry attributes (a kmsgd with the fleet); the counts
go with every share so a reader can judge them. A box is counted as the box table counts it:
the collector's file its entries are in and the identity they claim (`PostMortem.key`), so
two peers claiming one host name are two boxes, and one box cannot pass MIN_BOXES alone by
sending what it shares from one name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kmsgd.fleet.answer import Shared
from kmsgd.fleet.attributes import Attribute, Attributes
from kmsgd.fleet.postmortem import PostMortem

MIN_SUPPORT = 3  # bad ends of the cluster with the attribute
MIN_BOXES = 2  # boxes of the cluster: one box's quirks are that box, not a cause
MIN_DIFFERENCE = 0.2  # 20 percentage points above the fleet
MIN_Z = 3.5  # with ~30 attributes tried per cluster, chance passes about once in 300 clusters
MIN_OUTSIDE = 20  # boots outside the cluster: fewer, and the fleet share means nothing
TOP = 8


@dataclass(frozen=True, slots=True)
class Baseline:
    """Every attribute's count over the window's boots that carry attributes."""

    counts: Counter[Attribute]
    n: int
    boxes: int

    @classmethod
    def of(cls, post_mortems: Iterable[PostMortem]) -> Baseline:
        per_set: Counter[Attributes] = Counter()
        boxes = set()
        for pm in post_mortems:
            if pm.attributes is not None:
                per_set[pm.attributes] += 1  # boots of one box share one set: count sets
                boxes.add(pm.key)
        counts: Counter[Attribute] = Counter()
        for attrs, n in per_set.items():
            for a in attrs:
                counts[a] += n
        return cls(counts, sum(per_set.values()), len(boxes))


def _too_small(n_c: int, boxes: int, base: Baseline) -> str:
    if n_c < MIN_SUPPORT:
        return (
            f"too few to tell: {n_c} bad end{'s' if n_c != 1 else ''} with attributes "
            f"(need {MIN_SUPPORT})"
        )
    if boxes < MIN_BOXES:
        return "one box only: what it shares is that box, not a cause"
    if base.n - n_c < MIN_OUTSIDE:
        return (
            f"fleet too small to tell: {base.n - n_c} boots outside this cluster in the window "
            f"(need {MIN_OUTSIDE})"
        )
    return ""


def shared(members: Sequence[PostMortem], base: Baseline) -> tuple[tuple[Shared, ...], str]:
    """The ranked attributes the cluster's bad ends share, and a note (why the list is empty
    or partial; "" when there is nothing to add)."""
    with_attrs = [pm for pm in members if pm.attributes is not None]
    n_c = len(with_attrs)
    older = len(members) - n_c
    older_note = (
        f"{older} of {len(members)} bad ends from a kmsgd without attributes: "
        f"shares are over the other {n_c}"
        if older
        else ""
    )
    boxes_all = {pm.key for pm in with_attrs}
    small = _too_small(n_c, len(boxes_all), base)
    if small:
        return (), "; ".join(x for x in (small, older_note) if x)

    count: Counter[Attribute] = Counter()
    holders: dict[Attribute, set[tuple[str, str]]] = {}
    for pm in with_attrs:
        assert pm.attributes is not None
        for a in pm.attributes:
            count[a] += 1
            holders.setdefault(a, set()).add(pm.key)
    found: list[Shared] = []
    for a, k in count.items():
        s = Shared(a, True, k, n_c, base.counts[a], base.n, len(holders[a]))
        if _enough(s):
            found.append(s)
    # Absent parameters: only those common enough in the fleet that their absence can clear
    # MIN_DIFFERENCE (the difference of an absence is at most the parameter's fleet share).
    for a, k_f in base.counts.items():
        if a.kind != "cmdline" or k_f / base.n < MIN_DIFFERENCE:
            continue
        k = n_c - count.get(a, 0)
        if k < MIN_SUPPORT:
            continue
        lacking = {pm.key for pm in with_attrs if a not in (pm.attributes or ())}
        s = Shared(a, False, k, n_c, base.n - k_f, base.n, len(lacking))
        if _enough(s):
            found.append(s)
    found.sort(key=lambda s: (-s.difference, -s.cluster_count, s.label()))
    note = older_note
    if not found:
        note = "; ".join(
            x
            for x in (
                f"nothing stands out against the fleet (an attribute needs +{MIN_DIFFERENCE:.0%}, "
                f"z {MIN_Z}, {MIN_SUPPORT} bad ends and {MIN_BOXES} boxes)",
                older_note,
            )
            if x
        )
    return tuple(found[:TOP]), note


def _enough(s: Shared) -> bool:
    return (
        s.cluster_count >= MIN_SUPPORT
        and s.boxes >= MIN_BOXES
        and s.difference >= MIN_DIFFERENCE - 1e-9
        and s.z >= MIN_Z
    )
