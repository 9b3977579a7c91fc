"""Device coredumps are copied out of kernel memory, bounded, released, and reported."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fakes import dual_amdgpu_box

from kmsgd.ring.events import DumpEvent, EventName
from kmsgd.sensors.devcoredump import DumpCollector, pending, save


def make_dump(sys: Path, index: int, data: bytes, device: str = "0000:43:00.0") -> Path:
    d = sys / "devices" / "virtual" / "devcoredump" / f"devcd{index}"
    d.mkdir(parents=True)
    (d / "data").write_bytes(data)
    target = next((sys / "devices").rglob(device))
    os.symlink(target, d / "failing_device")
    (sys / "class" / "devcoredump").mkdir(parents=True, exist_ok=True)
    os.symlink(d, sys / "class" / "devcoredump" / f"devcd{index}")
    return d


AMDGPU_DUMP = (
    b"**** AMDGPU Device Coredump ****\nversion: 1\nkernel: 6.8.0\nring timeout sdma0\n" * 50
)


def test_dump_is_saved_released_and_named_in_the_event(tmp_path: Path) -> None:
    sys, _ = dual_amdgpu_box(tmp_path)
    dump = make_dump(sys, 3, AMDGPU_DUMP)
    event = save(str(dump), str(tmp_path / "state"), 1 << 20, 4)
    assert event.event is EventName.DEVCOREDUMP_SAVED
    assert (event.failing_device, event.driver, event.source) == (
        "0000:43:00.0",
        "amdgpu",
        "devcd3",
    )
    assert Path(event.saved_path).read_bytes() == AMDGPU_DUMP
    assert event.size_bytes == len(AMDGPU_DUMP) and not event.truncated
    assert (dump / "data").read_bytes().startswith(b"1\n")  # written to: the kernel frees it
    assert DumpEvent.from_payload(event.to_payload()) == event


def test_size_bound_truncates(tmp_path: Path) -> None:
    sys, _ = dual_amdgpu_box(tmp_path)
    dump = make_dump(sys, 0, b"x" * 200_000)
    event = save(str(dump), str(tmp_path / "state"), 100_000, 4)
    assert event.truncated and event.size_bytes == 100_000
    assert os.path.getsize(event.saved_path) == 100_000


def test_count_bound_keeps_the_newest_and_each_dump_is_saved_once(tmp_path: Path) -> None:
    sys, _ = dual_amdgpu_box(tmp_path)
    collector = DumpCollector(sys, str(tmp_path / "state"), 1 << 20, 2)
    for i in range(3):
        make_dump(sys, i, b"dump %d\n" % i)
    events = collector.collect()
    assert [e.source for e in events] == ["devcd0", "devcd1", "devcd2"]
    assert collector.collect() == []  # already handled
    saved = sorted(os.listdir(tmp_path / "state" / "devcoredump"))
    assert len(saved) == 2 and saved[-1].endswith("devcd2.bin")


def test_unwritable_state_dir_leaves_the_dump_in_the_kernel(tmp_path: Path) -> None:
    sys, _ = dual_amdgpu_box(tmp_path)
    dump = make_dump(sys, 1, AMDGPU_DUMP)
    state = tmp_path / "state"
    state.write_text("a file where a directory should be")
    collector = DumpCollector(sys, str(state), 1 << 20, 4)
    (event,) = collector.collect()
    assert event.event is EventName.DEVCOREDUMP_FAILED and event.reason
    assert (dump / "data").read_bytes() == AMDGPU_DUMP  # not released


def test_no_devcoredump_class_means_nothing_pending(tmp_path: Path) -> None:
    assert pending(tmp_path) == []


def test_a_link_planted_at_the_temporary_name_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Root copies the dump; whoever can write the state dir and guesses the temporary name
    (here made predictable) must not make root truncate or fill another file."""
    import kmsgd.sensors.devcoredump as devcoredump

    sys, _ = dual_amdgpu_box(tmp_path)
    dump = make_dump(sys, 5, AMDGPU_DUMP)
    victim = tmp_path / "victim"
    victim.write_text("secret\n")
    out = tmp_path / "state" / "devcoredump"
    out.mkdir(parents=True)
    monkeypatch.setattr(devcoredump.time, "strftime", lambda *a: "20260101T000000Z")
    monkeypatch.setattr(devcoredump.secrets, "token_hex", lambda n: "guessed")
    final = "20260101T000000Z-0000:43:00.0-devcd5.bin"
    for name in (f"{final}.part", f".{final}.guessed.part"):
        (out / name).symlink_to(victim)
    event = save(str(dump), str(tmp_path / "state"), 1 << 20, 4)
    assert victim.read_text() == "secret\n"
    assert event.event is EventName.DEVCOREDUMP_FAILED and "exists" in event.reason
    assert (dump / "data").read_bytes() == AMDGPU_DUMP  # not released: nothing was saved
