"""Coverage-guided fuzzing with atheris (libFuzzer), on demand; not part of the test suite.

    .venv/bin/pip install atheris
    .venv/bin/python tests/fuzz/atheris_fuzz.py kmsg    -atheris_runs=200000
    .venv/bin/python tests/fuzz/atheris_fuzz.py ring    -atheris_runs=20000
    .venv/bin/python tests/fuzz/atheris_fuzz.py config  -atheris_runs=50000
    .venv/bin/python tests/fuzz/atheris_fuzz.py analyze -atheris_runs=20000

Any libFuzzer flag works (-max_total_time=600, a corpus directory after the target name).
An exception other than the documented clean ones is a finding: libFuzzer stops and writes
the input to crash-<hash> in the current directory.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import uuid
from collections.abc import Callable

import atheris

from kmsgd import config
from kmsgd.commands.analyze import analyze
from kmsgd.errors import BadInput, RingCorrupt
from kmsgd.ring import frame as fr
from kmsgd.ring import layout as ring
from kmsgd.ring import records as kmsg
from kmsgd.ring.reader import RingReader
from kmsgd.ring.records import Kind
from kmsgd.ring.writer import RingWriter

WORK = tempfile.mkdtemp(prefix="kmsgd-fuzz-")


def fuzz_kmsg(data: bytes) -> None:
    kmsg.parse_record(data)
    kmsg.peek(data)
    kmsg.unescape(data)


def _base_ring() -> bytes:
    path = os.path.join(WORK, "base")
    w = RingWriter(path, size=ring.MIN_SIZE)
    for n in range(3):
        b = uuid.uuid4().bytes
        w.add(Kind.BOOT, b, 1, b'{"boot_id":"%s"}' % b.hex().encode())
        for i in range(250):
            w.add(Kind.KERNEL, b, 2, b"3,%d,%d,-;amdgpu: ring gfx timeout %d\n" % (i, i, n))
            if i % 50 == 0:
                w.add(Kind.LOST, b, 4, b'{"count":3,"first_seq":%d,"reason":"gap"}' % i)
                w.commit()
        w.commit()
    w.write_header()
    w.close()
    with open(path, "rb") as f:
        return f.read()


BASE: bytes = b""


def fuzz_ring(data: bytes) -> None:
    """The input is patches over a real ring: (offset u16 * 2, length u8, bytes) each."""
    fdp = atheris.FuzzedDataProvider(data)
    image = bytearray(BASE)
    while fdp.remaining_bytes() > 3:
        offset = fdp.ConsumeIntInRange(0, len(image) - 1)
        chunk = fdp.ConsumeBytes(fdp.ConsumeIntInRange(1, 64))
        if fdp.ConsumeBool():  # a whole CRC-valid frame with these contents
            kind = fdp.PickValueInList(list(Kind))
            chunk = fr.encode(fdp.ConsumeInt(8) & (2**64 - 1), bytes(16), 0, kind, chunk)
            offset -= offset % fr.ALIGN
        image[offset : offset + len(chunk)] = chunk[: len(image) - offset]
    path = os.path.join(WORK, "ring")
    with open(path, "wb") as f:
        f.write(image)
    try:
        with RingReader(path) as r:
            for row in r.boots():
                for _ in r.entries(row.boot_id):
                    pass
    except RingCorrupt:
        pass


def fuzz_config(data: bytes) -> None:
    path = os.path.join(WORK, "kmsgd.toml")
    with open(path, "wb") as f:
        f.write(data)
    # a file kmsgd cannot use is BadInput (one line, exit 2); anything else escaping is a bug
    with contextlib.suppress(BadInput):
        config.load(path, {})


def fuzz_analyze(data: bytes) -> None:
    with contextlib.suppress(BadInput):
        analyze(io.BytesIO(data), name="fuzz", fmt="json", redact=True)


TARGETS: dict[str, Callable[[bytes], None]] = {
    "kmsg": fuzz_kmsg,
    "ring": fuzz_ring,
    "config": fuzz_config,
    "analyze": fuzz_analyze,
}


def main() -> None:
    global BASE
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(TARGETS)} [libFuzzer flags]")
    target = TARGETS[sys.argv[1]]
    if target is fuzz_ring:
        BASE = _base_ring()
    atheris.instrument_all()  # coverage feedback from every loaded module, kmsgd's included
    atheris.Setup([sys.argv[0], *sys.argv[2:]], target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
