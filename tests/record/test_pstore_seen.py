"""A pstore dump is marked seen only once its ring record is durable (else a crash or a failing
disk in between loses the panic for good), and its record fits even a small ring."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kmsgd.config import Config
from kmsgd.record import hostenv
from kmsgd.ring import frame as fr
from kmsgd.ring.payloads import Payload
from kmsgd.ring.records import Kind

PANIC = "Panic#1 Part1\n<0>[   42.101601] Kernel panic - not syncing: sysrq triggered crash\n"


class _Log:
    def __init__(self) -> None:
        self.events: list[str] = []

    def __getattr__(self, _level: str) -> Any:
        return lambda event, **_: self.events.append(event)


def _tree(tmp_path: Path, text: str = PANIC) -> Config:
    pstore = tmp_path / "sys/fs/pstore"
    pstore.mkdir(parents=True)
    (pstore / "dmesg-ramoops-0").write_text(text)
    (tmp_path / "state").mkdir()
    return Config(
        sys_root=tmp_path / "sys",
        fs_root=tmp_path / "fs",
        state_dir=str(tmp_path / "state"),
    )


def test_a_dump_is_not_marked_seen_before_its_record_is_durable(tmp_path: Path) -> None:
    cfg = _tree(tmp_path)
    order: list[str] = []

    def emit(kind: Kind, data: Payload, urgent: bool) -> None:
        order.append(f"emit {kind}")

    log = _Log()
    hostenv._pstore(cfg, emit, log, sync=lambda: order.append("sync") or False)
    assert order == ["emit pstore", "sync"]
    assert not (tmp_path / "state/pstore-seen.json").exists()  # imported again next start
    assert "pstore_seen_not_saved" in log.events

    hostenv._pstore(cfg, emit, log, sync=lambda: order.append("sync") or True)
    seen = json.loads((tmp_path / "state/pstore-seen.json").read_text())
    assert len(seen) == 1 and order[-2:] == ["emit pstore", "sync"]


def test_a_huge_dump_fits_a_small_ring(tmp_path: Path) -> None:
    lines = [f"<4>[{i:>12}.000000] \u00e9\u00e9 line {i}" for i in range(100_000)]
    cfg = _tree(tmp_path, "Panic#1 Part1\n" + "\n".join(lines) + "\n")  # 4 MiB of escapes
    got: list[bytes] = []

    def emit(kind: Kind, data: Payload, urgent: bool) -> None:
        got.append(fr.encode_payload(kind, data))

    ring_bytes = 1 << 20
    hostenv._pstore(cfg, emit, _Log(), sync=lambda: True, ring_bytes=ring_bytes)
    (payload,) = got
    limit = (ring_bytes - 8192) // 4 - fr.HEADER_SIZE  # RingWriter.max_payload
    assert len(payload) <= limit
    assert b"line 99999" in payload and b"line 0\\n" not in payload  # the tail is kept
