"""Ring frames: the byte layout of one record and its payload codec. Pure; no I/O.

A frame is a 48-byte header and a payload, padded to 8 bytes:

    magic 4s | length u32 | serial u64 | boot_id 16s | wall_us i64 | kind u8 | 3 pad | crc u32

`crc` is CRC-32 over the header bytes before it and the payload. The magic has bytes >= 0x80
and every payload is ASCII (kmsg records are escaped by the kernel, JSON is written with
ensure_ascii), so a magic never appears inside a payload and resynchronising after a torn or
flipped frame is a plain search for it.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import mmap
import re
import struct
import zlib
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from kmsgd.ring import payloads
from kmsgd.ring.payloads import Payload
from kmsgd.ring.records import (
    KIND_CODES,
    KINDS_BY_CODE,
    Boot,
    Damaged,
    Entry,
    Heartbeat,
    Kind,
    Lost,
    LostReason,
    Stop,
    parse_record,
)
from kmsgd.types import WALL_US_MAX

MAGIC = b"\xe5KR\x91"
HEADER = struct.Struct("<4sIQ16sqB3xI")
_unpack = HEADER.unpack_from
_crc32 = zlib.crc32
HEADER_SIZE = HEADER.size  # 48
_CRC_SPAN = HEADER_SIZE - 4
ALIGN = 8
Buf = bytes | mmap.mmap
MAX_PAYLOAD = 1 << 20  # a hostile length field must not make a reader allocate more

_TYPED: dict[Kind, type[Boot] | type[Heartbeat] | type[Lost] | type[Stop]] = {
    Kind.BOOT: Boot,
    Kind.HEARTBEAT: Heartbeat,
    Kind.LOST: Lost,
    Kind.STOP: Stop,
}


def padded(size: int) -> int:
    return (size + ALIGN - 1) & ~(ALIGN - 1)


def encode_payload(kind: Kind, data: bytes | Payload) -> bytes:
    """Kernel records are stored as the raw kmsg bytes; the rest as compact ASCII JSON: a
    type's `to_payload` object, or its fields in order (boot, heartbeat, lost, stop)."""
    if isinstance(data, bytes):
        return data
    return encode_json(payload_object(data))


def payload_object(data: Payload) -> Mapping[str, object]:
    """The JSON object a typed payload is written as (and `kmsgd dump` shows)."""
    to_payload = getattr(data, "to_payload", None)
    if to_payload is not None:
        obj: Mapping[str, object] = to_payload()
        return obj
    if dataclasses.is_dataclass(data) and not isinstance(data, type):
        return dataclasses.asdict(data)
    return data  # another writer's object, as it came (tests, tools)


def encode_json(obj: Mapping[str, object]) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def cap_payload(kind: Kind, payload: bytes, limit: int) -> bytes:
    """`payload` cut to at most `limit` bytes, saying so. A kernel record keeps its prefix and
    the start of its text; JSON cannot be cut, so any other kind becomes a note of its kind
    and size (readers skip a payload with an `error`, as they skip a damaged one)."""
    if len(payload) <= limit:
        return payload
    if kind is Kind.KERNEL:
        mark = b" [kmsgd: record cut to fit the ring, %d bytes dropped]\n"
        keep = max(0, limit - len(mark % len(payload)))
        return payload[:keep].rstrip(b"\n") + mark % (len(payload) - keep)
    note = {"error": "record too large for the ring", "kind": kind.value, "bytes": len(payload)}
    return encode_json(note)


def encode(serial: int, boot_id: bytes, wall_us: int, kind: Kind, payload: bytes) -> bytes:
    """One complete frame, padded."""
    head = HEADER.pack(MAGIC, len(payload), serial, boot_id, wall_us, KIND_CODES[kind], 0)
    crc = zlib.crc32(payload, zlib.crc32(head[:_CRC_SPAN]))
    frame = head[:_CRC_SPAN] + crc.to_bytes(4, "little") + payload
    return frame + b"\0" * (padded(len(frame)) - len(frame))


class RawFrame(NamedTuple):
    """A checked frame as it lies in the file (a NamedTuple: a walk makes a million)."""

    offset: int
    size: int  # padded size on disk
    serial: int
    boot_id: bytes
    wall_us: int
    kind: Kind
    payload: bytes


def decode_at(buf: Buf, offset: int, limit: int) -> RawFrame | None:
    """The valid frame at `offset`, or None (no magic, bad length, bad CRC, unknown kind)."""
    end = offset + HEADER_SIZE
    if end > limit or buf[offset : offset + 4] != MAGIC:
        return None
    _, length, serial, boot_id, wall_us, code, crc = _unpack(buf, offset)
    if length > MAX_PAYLOAD or end + length > limit:
        return None
    payload = buf[end : end + length]
    if _crc32(payload, _crc32(buf[offset : offset + _CRC_SPAN])) != crc:
        return None
    kind = KINDS_BY_CODE.get(code)
    if kind is None or not 0 <= wall_us <= WALL_US_MAX:
        # A wall clock no clock can show: a foreign or damaged writer's frame, skipped as a
        # torn one is (the walk resynchronises after it), never handed to a reader.
        return None
    size = (HEADER_SIZE + length + ALIGN - 1) & ~(ALIGN - 1)
    return RawFrame(offset, size, serial, boot_id, wall_us, kind, payload)


def to_entry(frame: RawFrame) -> Entry:
    """Typed view of a frame. A payload that does not decode is `Damaged`."""
    data = decode_payload(frame.kind, frame.payload, wall_us=frame.wall_us)
    return Entry(frame.serial, frame.boot_id.hex(), frame.wall_us, frame.kind, data)


def decode_payload(kind: Kind, payload: bytes, *, wall_us: int | None = None) -> Payload:
    """A payload as its kind's type, or `Damaged` (the inverse of `encode_payload`)."""
    if kind is Kind.KERNEL:
        return parse_record(payload, wall_us=wall_us) or Damaged(
            "unparsable kernel record", len(payload)
        )
    return _decode_json(kind, payload)


# Deepest nesting a payload may have (kmsgd writes at most 3 levels). Python's json recurses
# once per level and a 64 KiB payload of "[" exceeds the interpreter's recursion limit.
MAX_JSON_DEPTH = 32
_TOKEN = re.compile(rb'[\[\]{}"\\]')


def too_deep(payload: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether a JSON text nests deeper than `limit` (brackets inside strings not counted).
    Cheap for every payload: the count of opening brackets bounds the depth, and only a
    payload with more than `limit` of them is scanned (once, linearly)."""
    if payload.count(b"[") + payload.count(b"{") <= limit:
        return False
    depth, in_string, escaped_at = 0, False, -1
    for m in _TOKEN.finditer(payload):
        at, token = m.start(), m.group()
        if at == escaped_at:  # the byte after a backslash inside a string
            continue
        if in_string:
            if token == b"\\":
                escaped_at = at + 1
            elif token == b'"':
                in_string = False
        elif token == b'"':
            in_string = True
        elif token in (b"[", b"{"):
            depth += 1
            if depth > limit:
                return True
        elif token in (b"]", b"}"):
            depth -= 1
    return False


# What may hold a number no reader can use: over 20 digits, NaN/Infinity, a 3-digit exponent.
# Payloads without any (all that kmsgd writes) take json's fast path. The check looks for plain
# substrings in the payload's shape (every digit "0", e/E "e", a sign "+", any other byte " "):
# a regular expression of the same alternatives, `\d{21}|Infinity|NaN|[eE][+-]?\d{3}`, is
# tried at every digit and letter and cost a third of a sample record's decode.
def _shape_table() -> bytes:
    table = bytearray(b" " * 256)
    for chars, shape in ((b"0123456789", b"0"), (b"eE", b"e"), (b"+-", b"+")):
        for c in chars:
            table[c] = shape[0]
    return bytes(table)


_SHAPE = _shape_table()
_LONG_INT, _BIG_EXP = b"0" * 21, (b"e000", b"e+000")


def suspect_number(payload: bytes) -> bool:
    """Whether `payload` may hold a number no reader can use (then json's hooks check each)."""
    if b"NaN" in payload or b"Infinity" in payload:
        return True
    shape = payload.translate(_SHAPE)
    return _LONG_INT in shape or _BIG_EXP[0] in shape or _BIG_EXP[1] in shape


class _OutOfRange(ValueError):
    pass


def _int(text: str) -> int:
    if len(text.lstrip("-")) > 20:  # beyond 64 bits: no counter, size or clock
        raise _OutOfRange(text)
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400 reads as inf
        raise _OutOfRange(text)
    return value


def _constant(text: str) -> float:
    raise _OutOfRange(text)  # NaN, Infinity, -Infinity: not JSON, never written by kmsgd


def _decode_json(kind: Kind, payload: bytes) -> Payload:
    size = len(payload)
    if too_deep(payload):
        return Damaged(f"payload nested deeper than {MAX_JSON_DEPTH} levels", size)
    try:
        if suspect_number(payload):
            obj: Any = json.loads(
                payload, parse_int=_int, parse_float=_float, parse_constant=_constant
            )
        else:
            obj = json.loads(payload)
    except _OutOfRange:
        return Damaged(f"{kind.value} payload with a number out of range", size)
    except (ValueError, RecursionError):
        return Damaged("payload is not JSON", size)
    if not isinstance(obj, dict):
        return Damaged("payload is not an object", size)
    cls = _TYPED.get(kind)
    if cls is None:
        return payloads.decode(kind, obj, size)
    if payloads.is_note(obj):
        return payloads.noted(obj, size)
    # A newer kmsgd may have added fields: keep the ones we know. A field of the wrong type
    # (a damaged or foreign writer) makes the record damaged, which readers skip.
    types = _field_types(cls)
    known = {k: v for k, v in obj.items() if k in types}
    if not all(_is(v, types[k]) for k, v in known.items()):
        return Damaged(f"{kind.value} payload with a field of the wrong type", size)
    if not all(_in_range(k, v) for k, v in known.items()):
        return Damaged(f"{kind.value} payload with a number out of range", size)
    for name, parse in _ENUM_FIELDS.get(cls, {}).items():
        if name in known:
            known[name] = parse(known[name])  # an unknown word too: never raises
    try:
        return cls(**known)
    except TypeError:  # a required field is missing
        return Damaged(f"{kind.value} payload with a field missing", size)


_TYPES: dict[type, dict[str, tuple[type, ...]]] = {}
# The closed sets a typed payload's fields may name: their annotation, and how a word read from
# a ring becomes a member (every word does: a newer or foreign writer's is expected).
_ENUMS: dict[str, Callable[[str], enum.StrEnum]] = {"LostReason": LostReason.parse}
_ENUM_FIELDS: dict[type, dict[str, Callable[[str], Any]]] = {
    cls: {f.name: _ENUMS[str(f.type)] for f in dataclasses.fields(cls) if str(f.type) in _ENUMS}
    for cls in _TYPED.values()
}


def _field_types(cls: type) -> dict[str, tuple[type, ...]]:
    """Field name -> the Python types its annotation allows ("int | None" -> (int, NoneType))."""
    if cls not in _TYPES:
        names: dict[str, tuple[type, ...]] = {
            "int": (int,),
            "str": (str,),
            "bool": (bool,),
            "float": (int, float),
            "None": (type(None),),
            **{name: (str,) for name in _ENUMS},
        }
        out: dict[str, tuple[type, ...]] = {}
        for f in dataclasses.fields(cls):
            parts = str(f.type).split("|")
            out[f.name] = tuple(t for p in parts for t in names.get(p.strip(), (object,)))
        _TYPES[cls] = out
    return _TYPES[cls]


def _in_range(name: str, value: object) -> bool:
    """A typed field's number within what its writer can write: a time (`*_us`) that a clock
    can show, any other integer within 64 bits, a finite float."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if name.endswith("_us"):
        return 0 <= value <= WALL_US_MAX
    return -(2**63) <= value < 2**64


def _is(value: object, allowed: tuple[type, ...]) -> bool:
    # bool is an int subclass: a boolean never passes for a number, nor a number for a bool.
    if isinstance(value, bool):
        return bool in allowed or object in allowed
    return isinstance(value, allowed)
