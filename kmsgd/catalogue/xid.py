"""NVIDIA Xid codes: meanings as NVIDIA publishes them (docs.nvidia.com/deploy/xid-errors,
"Xid Errors" catalog), with the usual operator action. Unknown codes get a generic entry.

The codes are those of open-gpu-kernel-modules src/common/sdk/nvidia/inc/nverror.h (names
such as GSP_RPC_TIMEOUT = 119, NVLINK_SAW_ERROR = 144); a code whose name says no more than
an engine's number (NVDEC5_ERROR, CE12_ERROR) is left to the generic entry. Codes the
catalog publishes that nverror.h no longer names (1-12, 18, 24-26, 37, 46, 54, 66, 67,
111-118: older drivers' push-buffer, semaphore and display codes) keep the catalog's meaning."""

from __future__ import annotations

from kmsgd.catalogue.base import Severity

_C, _E, _W = Severity.CRITICAL, Severity.ERROR, Severity.WARNING
_APP = "Usually the application: check its logs and CUDA version; a healthy GPU recovers."
_HW = "Suspect the GPU or its memory: run NVIDIA field diagnostics, drain and RMA if it repeats."
_RESET = "Reset the GPU (nvidia-smi -r) or reboot; if it repeats, check driver and firmware."
_NVLINK = (
    "Check NVLink bridges/cabling and the fabric manager; reset the GPU, run field diagnostics."
)
_PCIE = "Check the slot, riser, cabling and power of the GPU; reseat it if it repeats."

XID: dict[int, tuple[str, str, Severity]] = {
    1: ("Invalid or corrupted push buffer stream.", _HW, _E),
    2: ("Invalid or corrupted push buffer stream.", _HW, _E),
    3: ("Invalid or corrupted push buffer stream.", _HW, _E),
    4: ("Invalid or corrupted push buffer stream, or GPU semaphore timeout.", _HW, _E),
    6: ("Invalid or corrupted push buffer stream.", _HW, _E),
    7: ("Invalid or corrupted push buffer address.", _HW, _E),
    8: ("GPU stopped processing (timeout): driver, application or bus error.", _RESET, _E),
    9: ("Driver error programming the GPU.", _RESET, _E),
    11: ("Invalid or corrupted push buffer stream.", _HW, _E),
    12: ("Driver error handling a GPU exception.", _RESET, _E),
    13: ("Graphics engine exception: usually an application fault.", _APP, _W),
    14: ("Injected (fake) error: a test, not a fault.", "None: an error-injection test.", _W),
    16: ("Display engine timed out (vblank callback).", _RESET, _W),
    18: ("Bus mastering disabled in the GPU's PCI config space.", _PCIE, _E),
    19: ("Display engine missed a notifier.", _RESET, _W),
    20: ("Invalid or corrupted MPEG push buffer.", _APP, _W),
    21: ("Invalid or corrupted motion-estimation push buffer.", _APP, _W),
    22: ("Invalid or corrupted video-processor push buffer.", _APP, _W),
    24: ("GPU semaphore timeout.", _RESET, _E),
    25: ("Invalid or illegal push buffer stream.", _HW, _E),
    26: ("Frame buffer timeout.", _RESET, _E),
    30: ("GPU semaphore access error.", _APP, _W),
    31: ("GPU memory page fault: an application used a bad address.", _APP, _W),
    32: ("Invalid or corrupted push buffer stream (often PCIe or memory errors).", _HW, _E),
    33: ("Internal micro-controller (SEC) error.", _RESET, _E),
    37: ("Driver firmware error.", _RESET, _E),
    38: ("Driver firmware error.", _RESET, _E),
    43: ("GPU stopped processing: user application fault, GPU still healthy.", _APP, _W),
    44: ("Graphics engine fault during a context switch.", _RESET, _E),
    45: (
        "Preemptive cleanup after earlier errors (processes killed).",
        "Look at the Xid before it.",
        _W,
    ),
    46: ("GPU stopped processing.", _RESET, _C),
    48: ("Double-bit ECC error: uncorrectable GPU memory error.", _HW, _C),
    54: (
        "Auxiliary power is not connected to the GPU board.",
        "Connect the GPU's auxiliary power cables and check the PSU.",
        _E,
    ),
    56: ("Display engine error.", _RESET, _W),
    57: ("Error programming the video memory interface.", _HW, _E),
    58: ("Unstable video memory interface detected.", _HW, _E),
    59: ("Internal micro-controller (PMU) error.", _RESET, _E),
    60: ("Internal micro-controller (SEC2) error.", _RESET, _E),
    61: ("Internal micro-controller breakpoint/warning.", _RESET, _E),
    62: ("Internal micro-controller halt.", _RESET, _C),
    63: ("ECC page retirement or row remapping recorded.", "Schedule a GPU reset to apply it.", _W),
    64: ("ECC page retirement or row remapping failed.", _HW, _C),
    66: ("Illegal access by the driver.", _RESET, _E),
    67: ("Illegal access by the driver.", _RESET, _E),
    68: ("Video processor (NVDEC) exception.", _APP, _W),
    69: ("Graphics engine class error.", _APP, _W),
    74: ("NVLink error.", "Check NVLink bridges/cabling; run field diagnostics.", _C),
    78: ("vGPU start error: a virtual GPU could not start.", _RESET, _E),
    79: (
        "GPU has fallen off the bus: the GPU stopped answering on PCIe.",
        "Check power cabling, PSU headroom and PCIe seating/risers; not a driver bug.",
        _C,
    ),
    80: ("Push buffer CRC mismatch: data corrupted on its way to the GPU.", _PCIE, _E),
    81: ("VGA subsystem error.", _RESET, _E),
    90: ("GPU L2 cache (LTC) error.", _HW, _C),
    92: ("High single-bit ECC error rate.", _HW, _W),
    93: ("InfoROM erase limit exceeded.", _HW, _W),
    94: ("Contained ECC error: affected applications were stopped.", _RESET, _E),
    95: ("Uncontained ECC error: the GPU must be reset.", _RESET, _C),
    106: ("SMBPBI test message (out-of-band management test).", "None: a BMC test.", _W),
    107: ("SMBPBI test message, silent.", "None: a BMC test.", _W),
    108: ("NVLink remote translation error.", _NVLINK, _E),
    109: ("Context switch timeout.", _APP, _E),
    110: ("Security fault error.", _RESET, _E),
    111: ("Display bundle error event.", _RESET, _W),
    112: ("Display supervisor error.", _RESET, _W),
    113: ("DisplayPort link training error.", "Check the display cable and monitor.", _W),
    114: ("Display pipeline underflow.", _RESET, _W),
    115: ("Display core channel error.", _RESET, _W),
    116: ("Display window channel error.", _RESET, _W),
    117: ("Display cursor channel error.", _RESET, _W),
    118: ("Display pixel pipeline error.", _RESET, _W),
    119: ("GSP RPC timeout: the GPU System Processor stopped answering.", _RESET, _C),
    120: ("GSP error.", _RESET, _C),
    121: ("C2C link corrected error.", "Monitor; drain if it repeats.", _W),
    122: ("SPI flash read through the PMU failed (firmware storage).", _RESET, _E),
    123: ("SPI flash write through the PMU failed (firmware storage).", _RESET, _E),
    124: ("SPI flash erase through the PMU failed (firmware storage).", _RESET, _E),
    125: ("InfoROM file-system error.", _HW, _E),
    136: ("NVLink link training (ALI) failed.", _NVLINK, _E),
    137: ("NVLink privilege error.", _NVLINK, _E),
    140: ("Unrecovered ECC error.", _HW, _C),
    143: ("GPU initialisation failed.", _RESET, _C),
    144: ("NVLink error (SAW unit).", _NVLINK, _E),
    145: ("NVLink error (RLW unit).", _NVLINK, _E),
    146: ("NVLink error (TLW unit).", _NVLINK, _E),
    147: ("NVLink error (TREX unit).", _NVLINK, _E),
    148: ("NVLink error (NVLPW control).", _NVLINK, _E),
    149: ("NVLink error (NETIR unit).", _NVLINK, _E),
    150: ("NVLink error (MSE unit).", _NVLINK, _E),
    151: ("Confidential-computing key rotation error.", _RESET, _E),
    154: ("GPU recovery action changed (reset or reboot required).", _RESET, _E),
    155: ("NVLink error (software defined).", _NVLINK, _E),
    156: ("Resource retirement event (memory or channel retired).", "Schedule a GPU reset.", _W),
    157: ("Resource retirement failed.", _HW, _C),
    158: ("GPU fatal timeout.", _RESET, _C),
    159: ("Coherent interconnect (CHI) non-data error.", _HW, _E),
    160: ("Channel retirement event.", "Schedule a GPU reset.", _W),
    161: ("Channel retirement failed.", _HW, _E),
    162: ("Power smoothing (ISINK) re-engaged.", "Monitor the GPU's power delivery.", _W),
    163: ("Power smoothing (ISINK) disengaged.", "Monitor the GPU's power delivery.", _W),
    164: ("Power smoothing (ISINK) near the end of its lifetime.", _HW, _W),
    165: ("Power smoothing (ISINK) lifetime exhausted.", _HW, _E),
    166: ("NVLink encryption (NVLE) error.", _NVLINK, _E),
    167: ("PCIe fatal timeout: the GPU stopped answering PCIe requests.", _PCIE, _C),
    168: ("GPU memory capacity reduced (retired memory).", _HW, _W),
    169: ("Internal micro-controller (SEC2) halt.", _RESET, _C),
    170: ("NVLink security error.", _NVLINK, _E),
    171: ("Uncorrectable GPU memory (DRAM) error.", _HW, _C),
    172: ("Uncorrectable on-chip memory (SRAM) error.", _HW, _C),
    173: ("Fatal chip-to-chip (C2C) link failure.", _HW, _C),
    174: ("A channel was reset and its process killed (silently).", _APP, _W),
    175: ("GPU memory subsystem error.", _HW, _C),
    176: ("PCIe correctable error rate fault.", _PCIE, _W),
}


# Xids that start an incident (kmsgd/record/triggers.py keeps a copy): a hung channel or
# engine (8, 109), a halted or silent firmware (62, 119, 120), a recovery that needs a reset
# (154), and the GPU gone from the bus (79).
XID_TRIGGERS: tuple[tuple[int, str], ...] = (
    (8, "gpu_hang"),
    (62, "gpu_hang"),
    (79, "gpu_lost"),
    (109, "gpu_hang"),
    (119, "gpu_hang"),
    (120, "gpu_hang"),
    (154, "gpu_hang"),
)


def xid_meaning(code: int) -> tuple[str, str, Severity]:
    """(meaning, next step, severity) for an Xid code; unknown codes are still reported."""
    return XID.get(
        code,
        (
            f"NVIDIA Xid {code} (not in kmsgd's table).",
            "Look the code up in NVIDIA's Xid catalog.",
            _E,
        ),
    )
