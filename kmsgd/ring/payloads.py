"""Every ring kind's payload type, how a decoded JSON object becomes one, and `Emit`.

A record is decoded once, here: readers get the kind's frozen dataclass or `Damaged`, never a
dict to decode again. Each type's `to_payload` is the writer's JSON object (the keys, their
order and the numbers as written), so decoding what kmsgd wrote and encoding it again gives
the same bytes (tests/ring/test_payloads.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kmsgd.errors import BadInput
from kmsgd.ring import pstore
from kmsgd.ring.events import DeviceEvent, DumpEvent, SensorEvent, event_from_payload
from kmsgd.ring.incident import IncidentRecord
from kmsgd.ring.inventory import Inventory
from kmsgd.ring.records import Boot, Damaged, Heartbeat, KernelRecord, Kind, Lost, Stop
from kmsgd.ring.samples import DeviceSample, MemorySample, ProcsSample, sample_from_payload
from kmsgd.ring.sysctl import SysctlRecord

Payload = (
    KernelRecord
    | Boot
    | Heartbeat
    | Lost
    | Stop
    | DeviceSample
    | MemorySample
    | ProcsSample
    | SensorEvent
    | DumpEvent
    | DeviceEvent
    | pstore.PstoreDump
    | SysctlRecord
    | Inventory
    | IncidentRecord
    | Damaged
)

# A source hands the recorder one typed record: (kind, payload, urgent).
Emit = Callable[[Kind, Payload, bool], None]

# What a broken payload raises on the way into its dataclass: a missing key, a field of the
# wrong type (a list where an object belongs), a word outside a closed set.
_BROKEN = (KeyError, TypeError, ValueError, AttributeError, BadInput)


def _sample(obj: Mapping[str, Any]) -> Payload:
    return sample_from_payload(obj)


def _event(obj: Mapping[str, Any]) -> Payload:
    return event_from_payload(obj)


def _device(obj: Mapping[str, Any]) -> Payload:
    return DeviceEvent.from_payload(obj)


def _pstore(obj: Mapping[str, Any]) -> Payload:
    return pstore.from_payload(obj)


def _sysctl(obj: Mapping[str, Any]) -> Payload:
    return SysctlRecord.from_payload(obj)


def _inventory(obj: Mapping[str, Any]) -> Payload:
    return Inventory.from_payload(obj)


def _incident(obj: Mapping[str, Any]) -> Payload:
    return IncidentRecord.from_payload(obj)


_DECODERS: dict[Kind, Callable[[Mapping[str, Any]], Payload]] = {
    Kind.SAMPLE: _sample,
    Kind.EVENT: _event,
    Kind.DEVICE: _device,
    Kind.PSTORE: _pstore,
    Kind.SYSCTL: _sysctl,
    Kind.INVENTORY: _inventory,
    Kind.INCIDENT: _incident,
}

# The key a kind's payload names its own shape with.
_SHAPE_KEYS = {Kind.SAMPLE: "sample", Kind.EVENT: "event"}


_NOTE_KEYS = frozenset({"error", "kind", "bytes"})


def is_note(obj: Mapping[str, Any]) -> bool:
    """A note the writer put in place of a record (`frame.cap_payload`), or a reader's
    error object: an `error` and nothing but its kind and size."""
    return "error" in obj and obj.keys() <= _NOTE_KEYS


def noted(obj: Mapping[str, Any], size: int, shape: str = "") -> Damaged:
    """The note a writer put in place of a record (`frame.cap_payload`: a record too large
    for the ring), with the size the record had."""
    had = obj.get("bytes")
    real = had if isinstance(had, int) and not isinstance(had, bool) else size
    return Damaged(str(obj["error"]), real, shape)


def decode(kind: Kind, obj: dict[str, Any], size: int) -> Payload:
    """The typed payload of a JSON kind's object (`size`: the payload's bytes in the ring)."""
    decoder = _DECODERS.get(kind)
    if decoder is None:
        return Damaged(f"no decoder for {kind.value} records", size)
    key = _SHAPE_KEYS.get(kind)
    shape = str(obj.get(key, "")) if key else ""
    if is_note(obj):
        return noted(obj, size, shape)
    try:
        return decoder(obj)
    except _BROKEN as err:
        return Damaged(f"{kind.value} payload that does not decode: {err}", size, shape)
