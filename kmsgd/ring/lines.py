"""Ring entries as lines, for `kmsgd dump`: one line of text a record for people, or one JSON
object a record for scripts (every field as the ring holds it).

Given the frame's payload, a JSON record shows the ring's own object, not its decoded type
written out again: the sampler writes an integral reading as `71` (kmsgd/sensors/device.py
`_compact`), which the judge reads as the float 71.0, and a newer writer's keys the type does
not know are in the ring too.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Iterator, Mapping

from kmsgd.ring.frame import payload_object
from kmsgd.ring.records import Damaged, Entry, KernelRecord
from kmsgd.text.escape import escape, json_text


def _fields(e: Entry, payload: bytes | None) -> Mapping[str, object]:
    """A record's fields: a damaged one's error, a kernel record's parts, the rest as the ring's
    JSON spells them (`payload`, the frame's bytes, when given)."""
    if isinstance(e.data, KernelRecord | Damaged):
        return dataclasses.asdict(e.data)
    if payload is not None:
        held = json.loads(payload)  # it decoded, so it is an object within the depth bound
        if isinstance(held, dict):
            return held
    return payload_object(e.data)


def json_line(e: Entry, payload: bytes | None = None) -> str:
    data = _fields(e, payload)
    obj = {
        "serial": e.serial,
        "boot_id": e.boot_id,
        "wall_us": e.wall_us,
        "kind": e.kind.value,
        "data": data,
    }
    return json_text(json.dumps(obj, sort_keys=True, ensure_ascii=False))


def text_line(e: Entry, payload: bytes | None = None) -> str:
    """One record as one line; control characters from the kernel shown as `dmesg` shows them
    (`\\x1b`, kmsgd.text), a newline inside a message included."""
    return escape(_text_line(e, payload))


def _text_line(e: Entry, payload: bytes | None) -> str:
    head = f"{_when(e.wall_us)} {e.kind.value:9}"
    d = e.data
    if isinstance(d, KernelRecord):
        where = f" {d.device}" if d.device else ""
        ts = f"[{d.ts_usec / 1e6:12.6f}]" if d.ts_usec is not None else "[?]"
        return f"{head} {ts} <{d.level}> {d.message}{where}"
    return f"{head} " + " ".join(f"{k}={v}" for k, v in _flat(_fields(e, payload)))


def _flat(fields: Mapping[str, object]) -> Iterator[tuple[str, object]]:
    for key, value in fields.items():
        if isinstance(value, dict | list):
            value = json.dumps(value, separators=(",", ":"))
        yield key, value


def _when(wall_us: int) -> str:
    return dt.datetime.fromtimestamp(wall_us / 1e6, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
