"""Which kmsg source the daemon gets: the pump process only where the CPU keeps stores in
order (x86), the in-process reader elsewhere and for FIFOs and files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import kmsg_writable

from kmsgd.record.kmsg import KmsgReader
from kmsgd.record.kmsgpump import KmsgPump, open_source


@pytest.mark.skipif(kmsg_writable() is not None, reason=str(kmsg_writable()))
@pytest.mark.parametrize(
    ("machine", "pump"), [("x86_64", True), ("aarch64", False), ("ppc64le", False)]
)
def test_the_pump_only_on_cpus_with_total_store_order(machine: str, pump: bool) -> None:
    source = open_source("/dev/kmsg", machine=machine)
    try:
        assert isinstance(source, KmsgPump) is pump
        assert isinstance(source, KmsgReader) is not pump
        assert source.is_device
    finally:
        source.close()


def test_a_fifo_is_read_in_process_on_every_cpu(tmp_path: Path) -> None:
    fifo = tmp_path / "kmsg"
    os.mkfifo(fifo)
    keep = os.open(fifo, os.O_RDWR)  # a writer, so the reader's open does not block
    try:
        source = open_source(str(fifo), machine="x86_64")
        assert isinstance(source, KmsgReader) and not source.is_device
        source.close()
    finally:
        os.close(keep)
