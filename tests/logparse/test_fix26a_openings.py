"""Batch 26 (fix26a): the openings of GVT-g's host lines and of FreeBSD firmware(9)'s line for
radeon's files, so that an unstamped paste of them reads as kernel text."""

from __future__ import annotations

import pytest

from kmsgd.logparse.origin import kernel_opening


@pytest.mark.parametrize(
    "message",
    [
        "gvt: vgpu 2: cmd parser error",
        "Now vgpu 2 will enter failsafe mode.",
        "GVT Internal error  for the guest",
        "radeon/PITCAIRN_mc.bin: could not load firmware image, error 2",
    ],
)
def test_kernel_openings_of_batch_26(message: str) -> None:
    assert kernel_opening(message)


def test_a_program_naming_a_radeon_file_does_not_open_so() -> None:
    assert not kernel_opening("cp radeon/PITCAIRN_mc.bin /boot/firmware/")
