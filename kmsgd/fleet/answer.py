"""The fleet's answer, apart from how it is rendered: boxes, clusters, what clusters share.

`Fleet.to_json_dict` is the `kmsgd.fleet/1` document (docs/fleet.md lists its fields; names
are public: never rename one, add new ones).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from kmsgd.fleet.attributes import Attribute
from kmsgd.fleet.window import Window, iso

SCHEMA = "kmsgd.fleet/1"


@dataclass(frozen=True, slots=True)
class LastBad:
    when_us: int
    outcome: str
    primary: str
    fingerprint: str


@dataclass(frozen=True, slots=True)
class Box:
    box: str  # machine id, or host name when the entries carry none
    host: str
    boots: int  # post-mortems in the window
    bad_ends: int
    last_outcome: str
    last_fingerprint: str  # its newest post-mortem's, when that was a bad end; else ""
    last_seen_us: int
    last_bad: LastBad | None
    kmsgd_version: str  # "" for a kmsgd older than the fleet
    # the collector's file its entries are in (remote-<source>.journal); "" when not one peer's
    source: str = ""
    # other sources whose entries claim this box's identity: one of them is not this box
    claimed_from: tuple[str, ...] = ()
    # identities the entries of this box's source claim (1: the file speaks for one box)
    source_identities: int = 1

    @property
    def suspect(self) -> bool:
        """Its identity is claimed from another file too, or its file speaks for several."""
        return bool(self.claimed_from) or self.source_identities > 1

    @property
    def label(self) -> str:
        """The host name for people, with the collector's file when other files claim it too
        (two rows `gpu-a` would not say which is which)."""
        return f"{self.host} via remote-{self.source}" if self.claimed_from else self.host

    def to_json(self) -> dict[str, Any]:
        lb = self.last_bad
        return {
            "box": self.box,
            "source": self.source or None,
            "identity": None
            if not self.suspect
            else {
                "also_claimed_from": list(self.claimed_from),
                "identities_in_source": self.source_identities,
            },
            "host": self.host,
            "boots": self.boots,
            "bad_ends": self.bad_ends,
            "last_outcome": self.last_outcome,
            "last_fingerprint": self.last_fingerprint or None,
            "last_seen": iso(self.last_seen_us),
            "last_bad_end": None
            if lb is None
            else {
                "time": iso(lb.when_us),
                "outcome": lb.outcome,
                "primary": lb.primary or None,
                "fingerprint": lb.fingerprint or None,
            },
            "kmsgd_version": self.kmsgd_version or None,
        }


@dataclass(frozen=True, slots=True)
class Shared:
    """One attribute (or, for a command-line parameter, its absence) and how common it is
    among a cluster's bad ends against all boots of the fleet in the window."""

    attribute: Attribute
    present: bool  # False: the cluster's bad ends are *without* this parameter
    cluster_count: int
    cluster_n: int  # the cluster's bad ends that carry attributes
    fleet_count: int
    fleet_n: int  # the window's boots that carry attributes
    boxes: int  # how many of the cluster's boxes it holds for (at least one bad end)

    @property
    def cluster_share(self) -> float:
        return self.cluster_count / self.cluster_n if self.cluster_n else 0.0

    @property
    def fleet_share(self) -> float:
        return self.fleet_count / self.fleet_n if self.fleet_n else 0.0

    @property
    def difference(self) -> float:
        return self.cluster_share - self.fleet_share

    @property
    def z(self) -> float:
        """The difference in standard errors of a share over `cluster_n` draws from the fleet:
        how unlikely it is to be chance (boots of one box are not independent, so this is a
        floor for `MIN_Z`, not a p-value)."""
        p = self.fleet_share
        if p <= 0.0 or p >= 1.0:
            return 0.0 if self.difference <= 0 else float("inf")
        return self.difference / math.sqrt(p * (1 - p) / self.cluster_n)

    @property
    def lift(self) -> float | None:
        return self.cluster_share / self.fleet_share if self.fleet_share else None

    def label(self) -> str:
        base = self.attribute.label()
        return base if self.present else f"without {base}"

    def to_json(self) -> dict[str, Any]:
        lift = self.lift
        return {
            "attribute": self.attribute.kind,
            "value": self.attribute.value,
            "present": self.present,
            "label": self.label(),
            "cluster_count": self.cluster_count,
            "cluster_n": self.cluster_n,
            "cluster_share": round(self.cluster_share, 4),
            "fleet_count": self.fleet_count,
            "fleet_n": self.fleet_n,
            "fleet_share": round(self.fleet_share, 4),
            "difference": round(self.difference, 4),
            "lift": None if lift is None else round(lift, 2),
            "z": None if math.isinf(self.z) else round(self.z, 1),
            "boxes": self.boxes,
        }


@dataclass(frozen=True, slots=True)
class Cluster:
    kind: str  # "fingerprint": one failure; "primary": one primary tag across fingerprints
    key: str  # the fingerprint, or the tag
    outcomes: tuple[tuple[str, int], ...]  # most common first
    primary: str
    fingerprints: tuple[str, ...]
    headline: str  # the MESSAGE of its newest bad end
    count: int
    boxes: tuple[tuple[str, int], ...]  # (host, bad ends), most first
    first_us: int
    last_us: int
    with_attributes: int  # bad ends from a kmsgd that sends attributes
    shared: tuple[Shared, ...]
    note: str  # why `shared` is empty or partial; "" when there is nothing to say

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "key": self.key,
            "outcome": self.outcomes[0][0] if self.outcomes else None,
            "outcomes": dict(self.outcomes),
            "primary": self.primary or None,
            "fingerprints": list(self.fingerprints),
            "headline": self.headline,
            "count": self.count,
            "boxes": [{"host": h, "bad_ends": n} for h, n in self.boxes],
            "first_seen": iso(self.first_us),
            "last_seen": iso(self.last_us),
            "with_attributes": self.with_attributes,
            "shared": [s.to_json() for s in self.shared],
            "note": self.note or None,
        }


@dataclass(frozen=True, slots=True)
class Fleet:
    directory: str
    window: Window
    files: int
    entries: int
    duplicates: int
    post_mortems: int
    bad_ends: int
    fleet_n: int  # post-mortems with attributes: the baseline of every share
    boxes: tuple[Box, ...]
    clusters: tuple[Cluster, ...]
    skipped: tuple[tuple[str, str], ...]
    notes: tuple[str, ...]

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "journal_dir": self.directory,
            "window": {"since": iso(self.window.since_us), "until": iso(self.window.until_us)},
            "files": self.files,
            "entries": self.entries,
            "duplicates": self.duplicates,
            "post_mortems": self.post_mortems,
            "bad_ends": self.bad_ends,
            "boxes_with_bad_ends": sum(1 for b in self.boxes if b.bad_ends),
            "fleet_n": self.fleet_n,
            "skipped": [{"file": p, "why": w} for p, w in self.skipped],
            "notes": list(self.notes),
            "boxes": [b.to_json() for b in self.boxes],
            "clusters": [c.to_json() for c in self.clusters],
        }
