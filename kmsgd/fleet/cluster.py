"""Boxes and clusters from the window's post-mortems.

A cluster is the bad ends with one fingerprint (one failure, the same on every box), and, when
one primary tag spans several fingerprints, the bad ends with that tag as well (the same
culprit seen through different lines or outcomes). Clusters are ranked by how many bad ends
they hold, then by how recent they are.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from kmsgd.fleet.answer import Box, Cluster, Fleet, LastBad
from kmsgd.fleet.postmortem import PostMortem
from kmsgd.fleet.shared import Baseline, shared
from kmsgd.fleet.source import Scan
from kmsgd.fleet.window import Window


def boxes(post_mortems: Sequence[PostMortem]) -> tuple[Box, ...]:
    """One row per box (the file its entries are in and the identity they claim), most bad
    ends first. `post_mortems` in time order."""
    by_box: dict[tuple[str, str], list[PostMortem]] = defaultdict(list)
    for pm in post_mortems:
        by_box[pm.key].append(pm)
    # who claims an identity: sources per machine id, and per host name (two boxes may
    # claim one name under two ids); and the identities each source claims
    sources_of: dict[str, set[str]] = defaultdict(set)
    sources_of_host: dict[str, set[str]] = defaultdict(set)
    identities_of: dict[str, set[str]] = defaultdict(set)
    for (source, key), pms in by_box.items():
        if source:
            sources_of[key].add(source)
            sources_of_host[pms[-1].host].add(source)
            identities_of[source].add(key)
    rows = []
    for (source, key), pms in by_box.items():
        last = pms[-1]
        bad = [pm for pm in pms if pm.bad]
        lb = max(bad, key=lambda p: p.when_us) if bad else None
        version = next((a.value for a in last.attributes or () if a.kind == "kmsgd"), "")
        rows.append(
            Box(
                box=key,
                host=last.host,
                boots=len(pms),
                bad_ends=len(bad),
                last_outcome=last.outcome,
                last_fingerprint=last.fingerprint,
                last_seen_us=last.realtime_us,
                last_bad=None
                if lb is None
                else LastBad(lb.when_us, lb.outcome, lb.primary, lb.fingerprint),
                kmsgd_version=version,
                source=source,
                claimed_from=tuple(
                    sorted((sources_of[key] | sources_of_host[last.host]) - {source})
                )
                if source
                else (),
                source_identities=len(identities_of[source]) if source else 1,
            )
        )
    rows.sort(key=lambda b: (-b.bad_ends, -(b.last_bad.when_us if b.last_bad else 0), b.host))
    return tuple(rows)


SHOW_IDENTITY_NOTES = 10


def identity_notes(rows: Sequence[Box]) -> list[str]:
    """What the operator must know when a box's entries claim what its file does not: the
    same identity from two collector files, or one file speaking for several boxes."""
    notes = []
    claimed: dict[str, list[Box]] = defaultdict(list)  # host name -> its claimants
    crowded: dict[str, list[str]] = defaultdict(list)
    for b in rows:
        if b.claimed_from:
            claimed[b.host].append(b)
        if b.source_identities > 1:
            crowded[b.source].append(b.host)
    for host, claimants in sorted(claimed.items()):
        ids = {b.box for b in claimants}
        who = f"{host} ({next(iter(ids))})" if len(ids) == 1 else f"{host} ({len(ids)} ids)"
        sources = {src for b in claimants for src in (b.source, *b.claimed_from)}
        notes.append(
            f"identity {who} is claimed by the entries of {len(sources)} collector files "
            f"(remote-{', remote-'.join(sorted(sources))}): the boxes are kept apart; "
            "all but one of them is not that box"
        )
    for source, hosts in sorted(crowded.items()):
        notes.append(
            f"remote-{source} holds entries claiming {len(hosts)} identities "
            f"({', '.join(sorted(hosts))}): a relay, or a box writing as others"
        )
    if len(notes) > SHOW_IDENTITY_NOTES:
        more = len(notes) - SHOW_IDENTITY_NOTES
        notes = [
            *notes[:SHOW_IDENTITY_NOTES],
            f"{more} more identity notes (JSON: boxes' identity)",
        ]
    return notes


def _box_names(members: Sequence[PostMortem]) -> Counter[str]:
    """Bad ends per box of a cluster, a box named by its host; a host name that boxes of two
    collector files claim is named with its file too (`gpu-a via remote-gpu-b`), so they are
    counted apart and a reader sees which is which."""
    per_key = Counter(pm.key for pm in members)
    host_of = {pm.key: pm.host for pm in members}
    keys_of_host = Counter(host_of.values())
    named = {
        key: f"{host} via remote-{key[0]}" if keys_of_host[host] > 1 and key[0] else host
        for key, host in host_of.items()
    }
    keys_of_name = Counter(named.values())
    out: Counter[str] = Counter()
    for key, n in per_key.items():
        name = named[key]
        out[f"{name} ({key[1]})" if keys_of_name[name] > 1 else name] += n
    return out


def _cluster(kind: str, key: str, members: list[PostMortem], base: Baseline) -> Cluster:
    hosts = _box_names(members)
    newest = max(members, key=lambda p: p.when_us)
    found, note = shared(members, base)
    return Cluster(
        kind=kind,
        key=key,
        outcomes=tuple(Counter(pm.outcome for pm in members).most_common()),
        primary=newest.primary if kind == "fingerprint" else key,
        fingerprints=tuple(fp for fp, _ in Counter(pm.fingerprint for pm in members).most_common()),
        headline=newest.message,
        count=len(members),
        boxes=tuple(sorted(hosts.items(), key=lambda kv: (-kv[1], kv[0]))),
        first_us=min(pm.when_us for pm in members),
        last_us=newest.when_us,
        with_attributes=sum(1 for pm in members if pm.attributes is not None),
        shared=found,
        note=note,
    )


def clusters(post_mortems: Sequence[PostMortem], base: Baseline) -> tuple[Cluster, ...]:
    bad = [pm for pm in post_mortems if pm.bad]
    by_fp: dict[str, list[PostMortem]] = defaultdict(list)
    by_tag: dict[str, list[PostMortem]] = defaultdict(list)
    for pm in bad:
        by_fp[pm.fingerprint or f"({pm.outcome})"].append(pm)
        if pm.primary:
            by_tag[pm.primary].append(pm)
    out = [_cluster("fingerprint", fp, members, base) for fp, members in by_fp.items()]
    for tag, members in by_tag.items():
        if len({pm.fingerprint for pm in members}) > 1:
            out.append(_cluster("primary", tag, members, base))
    out.sort(key=lambda c: (-c.count, -c.last_us, c.kind, c.key))
    return tuple(out)


def fleet(scan: Scan, window: Window) -> Fleet:
    """The whole answer for one read of a journal directory."""
    pms = scan.post_mortems
    base = Baseline.of(pms)
    notes = []
    if not pms:
        notes.append("no kmsgd post-mortems in this window")
    older = sum(1 for pm in pms if pm.attributes is None)
    if older:
        notes.append(
            f"{older} post-mortems carry no attributes (a kmsgd from before the fleet): "
            "they count as boots and bad ends, not in the shares"
        )
    if scan.unusable:
        notes.append(
            f"{scan.unusable} entries with kmsgd's MESSAGE_ID lacked an outcome or boot id"
        )
    rows = boxes(pms)
    notes += identity_notes(rows)
    return Fleet(
        directory=scan.directory,
        window=window,
        files=scan.files,
        entries=scan.entries,
        duplicates=scan.duplicates,
        post_mortems=len(pms),
        bad_ends=sum(1 for pm in pms if pm.bad),
        fleet_n=base.n,
        boxes=rows,
        clusters=clusters(pms, base),
        skipped=tuple(scan.skipped),
        notes=tuple(notes),
    )
