"""A paste shape corpus batch 26 (docs/accuracy.md) showed refused: a SoC GPU driver's messages
with the dev_printk prefix cut to the driver's name ("v3d: …") and v3d_reset's register line
bare (kmsgd/logparse/salvage.py _KERNELISH)."""

from __future__ import annotations

from kmsgd.logparse import Line, Origin, parse_lines


def _kernel(*text: str) -> list[str]:
    lines = [ev for ev in parse_lines(list(text)) if isinstance(ev, Line)]
    return [ln.message for ln in lines if ln.origin is Origin.KERNEL]


def test_soc_gpu_driver_name_prefix_and_v3d_register_line_are_kernel_lines() -> None:
    assert _kernel("v3d: Resetting GPU for hang.", "V3D_ERR_STAT: 0x00001000") == [
        "v3d: Resetting GPU for hang.",
        "V3D_ERR_STAT: 0x00001000",
    ]
    assert _kernel("panfrost: gpu sched timeout, js=1") == ["panfrost: gpu sched timeout, js=1"]


def test_the_names_in_prose_are_not_kernel_lines() -> None:
    assert _kernel("v3d is the Pi 4's GPU driver", "msm hangs on my phone") == []
    assert _kernel("V3D_ERR_STAT: see the register docs") == []
