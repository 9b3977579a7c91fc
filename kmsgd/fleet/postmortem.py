"""One post-mortem as the fleet keeps it: who, when, how it ended, and what the boot ran on.

Built from an entry's raw fields (bytes, as the journal gives them). Entries from a kmsgd
older than the fleet (no KMSGD_VERSION) are kept with `attributes` None: they count as boots
and bad ends, but say nothing about what the boot ran on.

A box writes its fields itself, so none is trusted further than its size: a host name, tag or
fingerprint is cut at FIELD_MAX characters, a message at MESSAGE_MAX and an attribute (a
command line) at ATTRIBUTE_MAX, so one entry cannot make the report large. Where an entry
came from is the collector's word (the file it is in, `source`), not the entry's.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import NamedTuple, Protocol

from kmsgd.fleet import entry_format
from kmsgd.fleet.attributes import Attributes, Interner, attribute_field_names
from kmsgd.text.escape import clip
from kmsgd.types import Outcome, wall_us

# Ends that are not a box dying: a clean stop, a boot still running, or the recorder stopped
# while the system stayed up (the end is unknown, not bad). Everything else is a bad end,
# `unknown` included (no evidence of a clean end) and any outcome a newer kmsgd adds.
NOT_BAD = frozenset(
    {Outcome.CLEAN_SHUTDOWN, Outcome.CLEAN_REBOOT, Outcome.STILL_RUNNING, Outcome.RECORDER_STOPPED}
)

Raw = Mapping[str, object]  # field -> bytes, or a list of bytes for a repeated field
FIELD_MAX = 256  # a host name is at most 253 (RFC 1035); tags and fingerprints are short
MESSAGE_MAX = 512
ATTRIBUTE_MAX = 4096  # the kernel's COMMAND_LINE_SIZE on x86_64 is 2048


class Fields(Protocol):
    """One entry's fields as a journal reader gives them."""

    def get(self, name: str) -> object:
        """The value (bytes) of one field, None when the entry lacks it."""

    def all(self) -> Raw:
        """Every field (costly: decompresses the report JSON)."""


class RawFields:
    """Fields of an entry already read whole."""

    def __init__(self, raw: Raw) -> None:
        self.raw = raw

    def get(self, name: str) -> object:
        return self.raw.get(name)

    def all(self) -> Raw:
        return self.raw


class PostMortem(NamedTuple):
    """One judged boot of one box (a tuple: 300k of them are built in a few seconds)."""

    realtime_us: int  # when the entry was written (the collector's __REALTIME_TIMESTAMP)
    box: str  # machine id when the entry has one, else the host name
    host: str  # the host name, for people
    boot_id: str
    outcome: str
    primary: str  # "" when the post-mortem named no primary signature
    fingerprint: str  # bad ends only ("" for the others)
    end_us: int | None  # last sign of life of the judged boot, when known
    message: str  # the entry's one-line MESSAGE; kept for bad ends only
    attributes: Attributes | None  # None: an older kmsgd that wrote no attributes
    # the collector's peer the entry came from (remote-<source>.journal), "" when the file
    # is not one peer's; `box` is what the entry claims
    source: str = ""
    machine_id: str = ""  # the _MACHINE_ID the entry claims

    @property
    def bad(self) -> bool:
        return self.outcome not in NOT_BAD

    @property
    def key(self) -> tuple[str, str]:
        """What tells boxes apart: the collector's file and the identity claimed in it (two
        peers claiming one host name are two boxes; one of them is not that host)."""
        return self.source, self.box

    @property
    def when_us(self) -> int:
        """When the boot ended, as well as known: its last sign of life, else the entry time."""
        return self.end_us if self.end_us is not None else self.realtime_us


def _text(value: object, limit: int = FIELD_MAX) -> str:
    if isinstance(value, list):  # a repeated field: the last one written wins
        value = value[-1] if value else b""
    if isinstance(value, bytes):
        return clip(value.decode("utf-8", "replace"), limit)
    return "" if value is None else clip(str(value), limit)


class Builder:
    """Turns entries into PostMortem values, sharing equal strings and attribute sets
    (300k entries from 10k boxes hold only a few thousand distinct values of each). An entry's
    attributes are read whole only the first time its CONFIG_ID is seen."""

    def __init__(self) -> None:
        self.interner = Interner()
        self._strings: dict[object, str] = {}
        self._configs: dict[object, Attributes] = {}
        self._names = [attribute_field_names(n) for n in range(entry_format.GPU_MAX + 1)]

    def _s(self, value: object) -> str:
        """The text of a raw value, one shared str per distinct value."""
        try:
            found = self._strings.get(value)
        except TypeError:  # a repeated field gives a list
            found, value = None, _text(value)
        if found is None:
            found = self._strings[value] = sys.intern(_text(value))
        return found

    def _attributes(self, raw: Raw) -> Attributes:
        try:
            gpus = min(
                max(int(_text(raw.get(entry_format.GPU_COUNT))[:20] or 0), 0), entry_format.GPU_MAX
            )
        except ValueError:
            gpus = 0
        key = tuple(map(raw.get, self._names[gpus]))
        try:
            hash(key)
        except TypeError:  # a repeated field gives a list
            key = tuple(_text(v) for v in key)
        return self.interner.get(
            key, lambda: {n: _text(raw.get(n), ATTRIBUTE_MAX) for n in self._names[gpus]}
        )

    def attributes(self, fields: Fields) -> Attributes | None:
        """None for an entry of a kmsgd that sent no attributes (no KMSGD_VERSION)."""
        cid = fields.get(entry_format.CONFIG_ID)
        if cid is None:
            if fields.get(entry_format.VERSION) is None:
                return None
            return self._attributes(fields.all())
        try:
            found = self._configs.get(cid)
        except TypeError:  # repeated: no digest to trust
            return self._attributes(fields.all())
        if found is None:
            found = self._configs[cid] = self._attributes(fields.all())
        return found

    def build(self, fields: Fields, realtime_us: int, source: str = "") -> PostMortem | None:
        """None when the entry is no usable post-mortem (no outcome, boot id or host). A clean
        end costs five field look-ups (its fingerprint, primary tag, end time and message are
        not read: only bad ends are clustered); bad ends cost four more. `source`: the peer
        whose file holds the entry."""
        get = fields.get
        outcome = self._s(get(entry_format.OUTCOME))
        boot_id = _text(get(entry_format.BOOT_ID))
        if not outcome or not boot_id:
            return None
        host = self._s(get("_HOSTNAME")) or self._s(get(entry_format.HOSTNAME))
        machine_id = self._s(get("_MACHINE_ID"))
        box = machine_id or host
        if not box:
            return None
        attributes = self.attributes(fields)
        if outcome in NOT_BAD:
            return PostMortem(
                realtime_us,
                box,
                host or box,
                boot_id,
                outcome,
                "",
                "",
                None,
                "",
                attributes,
                source,
                machine_id,
            )
        end = _text(get(entry_format.END_USEC))
        return PostMortem(
            realtime_us=realtime_us,
            box=box,
            host=host or box,
            boot_id=boot_id,
            outcome=outcome,
            primary=self._s(get(entry_format.PRIMARY)),
            fingerprint=self._s(get(entry_format.FINGERPRINT)),
            end_us=wall_us(end),  # a 400-digit or impossible time: unknown
            message=_text(get("MESSAGE"), MESSAGE_MAX),
            attributes=attributes,
            source=source,
            machine_id=machine_id,
        )
