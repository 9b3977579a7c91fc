"""The driver core's report that a GPU or NIC driver's probe failed: that device is missing.

drivers/base/dd.c call_driver_probe (really_probe before 5.9) reports a probe that returned an
error other than -EPROBE_DEFER, -ENODEV or -ENXIO: pr_warn "%s: probe of %s failed with
error %d" (4.4-6.8), then dev_err "probe with driver %s failed with error %d" (6.12-6.18,
after dev_printk's "<driver> <bus id>: "). The line names the driver but not why; the lines
before it do. The rule: a probe failure counts as the init failure of the GPU or NIC driver
it names (GPU_DRIVERS, NIC_DRIVERS) and of no other. Other drivers' probes fail on healthy
boxes every day (a sensor or a codec the board does not wire, a second driver for a device
that already has one), and such a line says nothing of a freeze. NVIDIA's driver is left out
on purpose: its probe refuses, by design, the GPUs it is told to leave alone (excluded ones,
or ones held for passthrough: kernel-open/nvidia/nv-pci.c), so its probe failure alone is
routine on VFIO hosts; when it does fail a GPU, its own NVRM lines (RmInitAdapter) say so.

Each entry copies its family's own init-failure entry (meaning, rank, device) and swaps in the
driver core's wording; table.py registers them after the family modules, so that the family's
entry stays the first of its tag.
"""

from __future__ import annotations

import dataclasses
import re

from kmsgd.catalogue.base import Format, Signature
from kmsgd.catalogue.gpu import GPU_SIGNATURES
from kmsgd.catalogue.gpu_intel import I915_SIGNATURES
from kmsgd.catalogue.gpu_other import OTHER_GPU_SIGNATURES
from kmsgd.catalogue.net import NET_SIGNATURES

# driver name (as the driver registers it) → the tag of that driver's init failure
GPU_DRIVERS: dict[str, str] = {
    "amdgpu": "amdgpu_init_failure",
    "i915": "i915_init_failure",
    "xe": "i915_init_failure",
    "nouveau": "nouveau_error",
}
# the NIC drivers of servers and desktops (as they register with the driver core): their
# probe fails only on a card that is present and broken or unsupported (its NVM, firmware or
# chip), so the line is that card missing this boot; a USB NIC's, whose probe fails on a
# flaky hub or cable, is left out
NIC_DRIVERS: dict[str, str] = {
    **{
        d: "nic_probe_failure"
        for d in (
            "e1000",
            "e1000e",
            "igb",
            "igc",
            "ixgbe",
            "i40e",
            "ice",
            "r8169",
            "tg3",
            "bnx2",
            "bnx2x",
            "bnxt_en",
            "mlx4_core",
            "qede",
            "atlantic",
            "ena",
            "gve",
            "vmxnet3",
            "hns3",
            "nfp",
            "sfc",
            "cxgb4",
            "be2net",
        )
    },
    "mlx5_core": "mlx5_probe_failure",
}
_DD = "drivers/base/dd.c"


def _probe_entry(tag: str, drivers: tuple[str, ...]) -> Signature:
    family = next(
        s
        for s in GPU_SIGNATURES + I915_SIGNATURES + OTHER_GPU_SIGNATURES + NET_SIGNATURES
        if s.tag == tag
    )
    names = "|".join(re.escape(d) for d in drivers)
    formats: list[Format] = []
    for d in drivers:
        formats.append(
            Format(
                "probe with driver %s failed with error %d",
                _DD,
                "6.12-6.18",
                f"{d} 0000:03:00.0: ",
                args=(d, -22),
            )
        )
        formats.append(
            Format(
                "%s: probe of %s failed with error %d", _DD, "4.4-6.8", args=(d, "0000:03:00.0", -5)
            )
        )
    return dataclasses.replace(
        family,
        pattern=re.compile(
            rf"\bprobe with driver (?:{names}) failed with error -?\d+"
            rf"|(?<![\w-])(?:{names}): probe of \S+ failed with error -?\d+"
        ),
        keywords=("probe",),
        check=None,
        trigger=None,
        formats=tuple(formats),
    )


_DRIVERS = {**GPU_DRIVERS, **NIC_DRIVERS}
PROBE_SIGNATURES: tuple[Signature, ...] = tuple(
    _probe_entry(tag, tuple(d for d, t in _DRIVERS.items() if t == tag))
    for tag in dict.fromkeys(_DRIVERS.values())
)
