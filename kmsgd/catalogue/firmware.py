"""Device firmware a driver cannot load: the device stays down for the boot.

The rule: the firmware loader's own "Direct firmware load for %s failed with error %d"
(drivers/base/firmware_loader/main.c, firmware_class.c before 4.18) is no evidence. Drivers
ask for optional files and for newer versions before older ones (iwlwifi walks down its API
versions, bnx2x tries the previous file, amdgpu probes for files a chip may not have), so
the loader's line is printed on healthy boots. What counts is the driver giving up: its own
words that it could not load the firmware it needs ("Can't load firmware file", "no suitable
firmware found!", "failed to load firmware") or that the hardware init failed without it.
The GPU drivers' firmware failures are their own entries (gpu_firmware.py); an optional
patch that a driver runs without (r8169's "unable to load firmware patch") is not a give-up.
"""

from __future__ import annotations

import re

from kmsgd.catalogue.base import DeviceKind, Format, MatchInput, Severity, Signature, sig

_BNX2X = "bnx2x: [bnx2x_init_firmware:12987(enp2s0f0)]"  # BNX2X_ERR: pr_err("[%s:%d(%s)]" …)
# lines of the GPU drivers, whose firmware failures are amdgpu_init_failure & co
_GPU = re.compile(r"(?:amdgpu|radeon|nouveau|i915|xe|nvidia\S*|NVRM)\b|\[drm")


def _not_gpu(m: re.Match[str], i: MatchInput) -> bool:
    """An entry's check: the line is no GPU driver's."""
    return _GPU.match(i.text) is None


FIRMWARE_LOAD_SIGNATURES: tuple[Signature, ...] = (
    # bnx2x_main.c bnx2x_init_firmware: BNX2X_ERR("Can't load firmware file %s") (4.4-4.19),
    # bnx2x_sp.c bnx2x_func_hw_init: "Error loading firmware" and bnx2x_cmn.c bnx2x_nic_load:
    # "HW init failed, aborting" (4.4-6.18); bnx2.c and cw1200 pr_err("Can't load firmware
    # file …") (4.4-6.18); iwlwifi iwl-drv.c, iwlegacy, ath9k hif_usb.c "no suitable firmware
    # found!" (4.4-6.18), rtw89 "no suitable firmware found"; the drivers' "failed to load
    # firmware" / "Failed to load firmware" / "Unable to load firmware" / "firmware loading
    # failed" (drivers/net, drivers/scsi, drivers/infiniband: qla2xxx, qed, mt76, ath10k, …);
    # radeon's microcode loaders (cik.c cik_init_microcode, si.c, ni.c, r600.c: "cik_cp: Failed
    # to load firmware \"%s\"", printk(KERN_ERR) 4.4, pr_err 4.19-6.18) after the legacy
    # upper-case name also failed: the probe gives up ("Fatal error during GPU init")
    # Intel's Bluetooth controllers, which stay in their bootloader without the operational
    # firmware (btusb.c btusb_intel_download_firmware 4.19-5.10, btintel.c 5.15-6.18: bt_dev_err
    # "Failed to load Intel firmware file %s (%d)", after "Bluetooth: hci0: ")
    sig(
        "firmware_load_failure",
        r"[Cc]an't load firmware file|\bError loading firmware\b|HW init failed, aborting"
        r"|no suitable firmware found|Failed to load Intel firmware file "
        r"|(?:[Ff]ailed|[Uu]nable) to (?:load|request) (?:the )?"
        r"(?:firmware|FW|fw)\b(?! patch)|[Ff]irmware load(?:ing)? failed",
        (
            "Can",
            "can",
            "Error",
            "aborting",
            "suitable",
            "Failed",
            "failed",
            "Unable",
            "unable",
            "FW",
            "fw",
        ),
        Severity.ERROR,
        "device",
        "A driver could not load the firmware its device needs and gave up: the device (a "
        "NIC, a storage or wireless adapter) stays down for this boot.",
        "Install the firmware file the line names (the linux-firmware package, or the "
        "vendor's for that kernel), check that the initramfs carries it, then reload the "
        "driver or reboot.",
        47,
        device_kind=DeviceKind.PCI,
        check=_not_gpu,
        formats=(
            Format(
                "Can't load firmware file %s",
                "drivers/net/ethernet/broadcom/bnx2x/bnx2x_main.c",
                "4.4-4.19",
                _BNX2X,
                args=("bnx2x/bnx2x-e1h-7.10.51.0.fw",),
            ),
            Format(
                "Error loading firmware",
                "drivers/net/ethernet/broadcom/bnx2x/bnx2x_sp.c",
                "4.4-6.18",
                "bnx2x: [bnx2x_func_hw_init:5523(enp2s0f0)]",
            ),
            Format(
                "HW init failed, aborting",
                "drivers/net/ethernet/broadcom/bnx2x/bnx2x_cmn.c",
                "4.4-6.18",
                "bnx2x: [bnx2x_nic_load:2706(enp2s0f0)]",
            ),
            Format(
                "no suitable firmware found!",
                "drivers/net/wireless/intel/iwlwifi/iwl-drv.c",
                "4.4-6.18",
                "iwlwifi 0000:00:14.3: ",
            ),
            Format(
                'Can\'t load firmware file "%s"',
                "drivers/net/ethernet/broadcom/bnx2.c",
                "4.4-6.18",
                "bnx2: ",
                args=("bnx2/bnx2-mips-09-6.2.1b.fw",),
            ),
            Format(
                "Failed to load Intel firmware file %s (%d)",
                "drivers/bluetooth/btintel.c",
                "5.15-6.18",
                "Bluetooth: hci0: ",
                args=("intel/ibt-0040-0041.sfi", -2),
            ),
            Format(
                'cik_cp: Failed to load firmware "%s"',
                "drivers/gpu/drm/radeon/cik.c",
                "4.4-6.18",
                args=("radeon/KABINI_pfp.bin",),
            ),
        ),
    ),
)
