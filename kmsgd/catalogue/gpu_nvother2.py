"""GPU wordings of the NVIDIA/virtual/SoC sweep, continued (gpu_nvother.py has the rest):
i915's dGPU that does not answer or whose local memory was not trained (i915_init_failure),
xe's GuC that does not answer its MMIO mailbox (i915_gpu_hang), and nouveau's GSP-RM error
reports (nouveau_error).
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig, wording
from kmsgd.catalogue.gpu_intel import I915_SIGNATURES
from kmsgd.catalogue.gpu_other import OTHER_GPU_SIGNATURES

# nouveau_error's own entry (gpu_other.py): the wordings below are more of its event
_NOUVEAU_ERROR = next(s for s in OTHER_GPU_SIGNATURES if s.tag == "nouveau_error")

# i915_init_failure's own entry (gpu_intel.py): the wordings below are more of its event
_I915_INIT_FAILURE = next(s for s in I915_SIGNATURES if s.tag == "i915_init_failure")

_PCI = DeviceKind.PCI
I915 = "gpu.i915"
NOUVEAU = "gpu.nouveau"
_I915_DEV = "i915 0000:03:00.0: [drm] *ERROR* "  # drm_err (include/drm/drm_print.h)
_XE_GT = "xe 0000:03:00.0: [drm] *ERROR* GT0: "  # xe_gt_err (xe_gt_printk.h)

NVOTHER2_GPU_SIGNATURES: tuple[Signature, ...] = (
    # i915's first look at a GPU's registers, intel_uncore.c (dGPUs: Arc, Flex, DG1):
    # sanity_check_mmio_access drm_err "Device is non-operational; MMIO access returns
    # 0xFFFFFFFF!" (6.2-6.18: the GPU does not answer on PCIe, a card left wedged by a VM or
    # a failed reset) and intel_uncore_init_mmio "LMEM not initialized by firmware" (5.14-
    # 6.18; gt_err, with "GT0: " first, 6.6+: the card's firmware did not train its local
    # memory); "Device initialization failed (%d)" follows either
    wording(
        _I915_INIT_FAILURE,
        r"\bDevice is non-operational; MMIO access returns 0xFFFFFFFF!"
        r"|\bLMEM not initialized by firmware\b",
        ("operational", "LMEM"),
        device_kind=_PCI,
        check=lambda m, i: "i915" in i.text,
        formats=(
            Format(
                "Device is non-operational; MMIO access returns 0xFFFFFFFF!",
                "drivers/gpu/drm/i915/intel_uncore.c",
                "6.2-6.18",
                _I915_DEV,
            ),
            Format(
                "LMEM not initialized by firmware",
                "drivers/gpu/drm/i915/intel_uncore.c",
                "5.14-6.5",
                _I915_DEV,
            ),
            Format(
                "LMEM not initialized by firmware",
                "drivers/gpu/drm/i915/intel_uncore.c",
                "6.6-6.18",
                _I915_DEV + "GT0: ",
            ),
        ),
    ),
    # nouveau on GSP-RM (Turing and later, 6.7-6.18: drivers/gpu/drm/nouveau/nvkm/subdev/
    # gsp/r535.c, rm/r535/rpc.c from 6.16): the firmware's own error reports, nvkm_error
    # (dev_err "<subdev>: ") "gsp: Xid:%d %s" (r535_gsp_msg_os_error_log: the Xid NVIDIA's
    # driver would print) and "gsp: rc engn:%08x chid:%d type:%d scope:%d part:%d"
    # (r535_gsp_msg_rc_triggered: a channel the firmware's robust-channel recovery killed)
    wording(
        _NOUVEAU_ERROR,
        r"\bnouveau \S+: gsp: (?:Xid:\d+ |rc engn:[0-9a-f]+ chid:\d+ type:\d+)",
        ("Xid", "engn"),
        device_kind=_PCI,
        formats=(
            Format(
                "Xid:%d %s",
                "drivers/gpu/drm/nouveau/nvkm/subdev/gsp/r535.c",
                "6.7-6.15",
                "nouveau 0000:01:00.0: gsp: ",
                args=(13, "Graphics Exception: ESR 0x404490=0x80000002"),
            ),
            Format(
                "rc engn:%08x chid:%d type:%d scope:%d part:%d",
                "drivers/gpu/drm/nouveau/nvkm/subdev/gsp/r535.c",
                "6.7-6.15",
                "nouveau 0000:01:00.0: gsp: ",
                args=(0x1, 24, 31, 1, 0xFFFF),
            ),
        ),
    ),
    # drivers/gpu/drm/xe/xe_guc.c xe_guc_mmio_send_recv (6.8-6.18): xe_gt_err "GuC mmio
    # request %#x: no reply %#x" when the GuC does not answer a request through its
    # scratch registers within 50 ms: the GuC firmware is hung or dead (the same failure
    # as the CT channel's "No response for request"), and every submission behind it stalls
    sig(
        "i915_gpu_hang",
        r"\bGuC mmio request 0x[0-9a-fA-F]+: no reply 0x[0-9a-fA-F]+",
        ("GuC",),
        Severity.ERROR,
        I915,
        "Intel's GPU hung: a command buffer stopped making progress, and i915 captured an "
        "error state and reset the engine or the whole chip.",
        "Read /sys/class/drm/card0/error for the hung context and its process; update Mesa "
        "and the kernel, and check the GuC/HuC firmware; hangs that each reset fails to "
        "clear wedge the GPU.",
        38,
        device_kind=_PCI,
        check=lambda m, i: i.text.startswith("xe "),
        formats=(
            Format(
                "GuC mmio request %#x: no reply %#x",
                "drivers/gpu/drm/xe/xe_guc.c",
                "6.8-6.18",
                _XE_GT,
                args=(0x5507, 0x5507),
            ),
        ),
    ),
)
