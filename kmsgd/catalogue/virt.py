"""Virtualisation host signatures: KVM failing to turn on the CPU's hardware virtualisation.

virt/kvm/kvm_main.c enables VMX/SVM on every online CPU when the first VM is created (and on
each CPU brought online while VMs run; at module load from 6.x). A CPU that refuses (VMX held
by another hypervisor such as VirtualBox or VMware, locked off in firmware on that CPU, a
nested guest without nested virtualisation) fails the whole enable: no VM starts on the box.
The module-load refusals ("kvm: disabled by bios", "kvm: no hardware support", 6.x's "VMX
not supported by CPU %d", "SVM not supported by CPU %d") are a configuration printed on every
boot of a box with virtualisation off, not an event: they tag nothing.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig

VIRT = "virt"
# vendor-reset's device names (src/device-db.h DEVICE_INFO: the info_str its vr_* macros put
# before every message, "%s: " fmt); navi10.c's own nv_* macros of the older releases print
# the lower-case chip name instead
_VENDOR_RESET_CHIPS = (
    "AMD_POLARIS10",
    "AMD_POLARIS11",
    "AMD_POLARIS12",
    "AMD_VEGA10",
    "AMD_VEGA20",
    "AMD_NAVI10",
    "AMD_NAVI12",
    "AMD_NAVI14",
    "AMD_NAVI23",
    "navi10",
    "navi12",
    "navi14",
)

VIRT_SIGNATURES: tuple[Signature, ...] = (
    # virt/kvm/kvm_main.c hardware_enable_nolock (4.4-6.2), __hardware_enable_nolock
    # (6.3-6.10), kvm_enable_virtualization_cpu (6.11-6.18): pr_info "kvm: enabling
    # virtualization on CPU%d failed" (no pr_fmt); arch/x86/kvm/x86.c __hardware_enable
    # (kvm/queue 6.3 series) pr_warn "kvm: enabling virtualization on CPU%d failed during
    # %s()", with the caller's name
    sig(
        "kvm_virtualization_enable_failure",
        r"\bkvm: enabling virtualization on CPU\d+ failed\b",
        ("virtualization",),
        Severity.ERROR,
        VIRT,
        "KVM could not turn on hardware virtualisation (VMX/SVM) on a CPU: no virtual machine "
        "can start on this host (another hypervisor such as VirtualBox or VMware holds "
        "VMX/SVM, it is off in the firmware, or a guest lacks nested virtualisation).",
        "Stop the other hypervisor (VirtualBox, VMware) or unload its module, enable VT-x/"
        "AMD-V (and on every CPU) in the firmware; in a VM, enable nested virtualisation on "
        "its host.",
        50,
        formats=(
            Format(
                "kvm: enabling virtualization on CPU%d failed",
                "virt/kvm/kvm_main.c",
                "4.4-6.18",
                args=(7,),
            ),
            Format(
                "kvm: enabling virtualization on CPU%d failed during %s()",
                "arch/x86/kvm/x86.c",
                "6.3 (kvm/queue)",
                args=(3, "hardware_enable_all"),
            ),
        ),
    ),
    # A BAR of a device handed to a VM that vfio-pci cannot claim (drivers/vfio/pci/
    # vfio_pci_core.c vfio_pci_core_setup_barmap, vfio_pci.c before 5.15:
    # pci_request_selected_regions; its failure is drivers/pci/pci.c __pci_request_region's
    # warning, dev_warn "BAR %d: can't reserve %pR" 4.4-4.16, pci_warn 4.17-6.18, printed
    # with the bound driver's name): another holder, typically the host's boot frame buffer
    # (efifb, simplefb, sysfb) on the passed-through GPU's BAR 0, keeps the range, so the
    # guest's accesses to that BAR fail and the passed-through GPU shows nothing. The same
    # warning under another driver is that driver's probe failure, not this.
    sig(
        "vfio_bar_reserve_failure",
        r"\bvfio-pci \S+: BAR \d+: can't reserve \[",
        ("vfio",),
        Severity.ERROR,
        VIRT,
        "vfio-pci could not reserve a BAR of the device passed through to a VM (another "
        "driver, typically the host's boot frame buffer, holds its memory range): the guest "
        "cannot use the device.",
        "Free the range before the VM starts: unbind the frame buffer (efifb/simplefb, or "
        "initcall_blacklist=sysfb_init / video=efifb:off), and check /proc/iomem for the holder.",
        50,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "BAR %d: can't reserve %pR",
                "drivers/pci/pci.c",
                "4.4-6.18",
                "vfio-pci 0000:05:00.0: ",
                args=(0, "[mem 0xd0000000-0xdfffffff 64bit pref]"),
            ),
        ),
    ),
    # gnif/vendor-reset (an out-of-tree module that gives AMD GPUs without a working PCI reset
    # a device-specific one, so that vfio-pci can hand them to a VM again): src/vendor-reset-
    # dev.c vendor_reset_dev_locked vr_warn "failed to reset device" when the chip's reset
    # returns an error (pci_warn "Failed to reset device", without the chip's name, in the
    # first releases), and the mode-1 reset's own failures in src/amd/navi10.c, vega10.c,
    # vega20.c amd_*_reset: "PSP did not acknowledger reset" (sic) and "timed out waiting for
    # PSP bootloader to respond after reset". Its post-reset hook still runs and may report
    # "reset result = 0": the GPU is left as it was, and the VM's start or the guest driver
    # fails on it.
    sig(
        "vendor_reset_failure",
        rf"\b(?:{'|'.join(_VENDOR_RESET_CHIPS)}): (?:failed to reset device"
        r"|PSP did not acknowledger reset|timed out waiting for PSP bootloader to respond "
        r"after reset)",
        _VENDOR_RESET_CHIPS,
        Severity.ERROR,
        VIRT,
        "vendor-reset could not reset the AMD GPU being passed through to a VM: the device "
        "stays in the state its last user left it, and the guest cannot bring it up.",
        "Check vendor-reset supports the chip (src/device-db.h; an APU's iGPU, as a 780M, is "
        "not a Navi 10), use the reset method it documents, or reboot the host between guest "
        "runs.",
        50,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "%s: failed to reset device",
                "vendor-reset:src/vendor-reset-dev.c",
                "vendor-reset master (the tree read)",
                "vfio-pci 0000:c7:00.0: ",
                args=("AMD_NAVI10",),
            ),
            Format(
                "%s: PSP did not acknowledger reset",
                "vendor-reset:src/amd/navi10.c",
                "vendor-reset master (the tree read)",
                "vfio-pci 0000:03:00.0: ",
                args=("AMD_NAVI10",),
            ),
            Format(
                "%s: timed out waiting for PSP bootloader to respond after reset",
                "vendor-reset:src/amd/navi10.c",
                "vendor-reset 0.1 (navi10.c's nv_warn with the chip's own name, as read)",
                "vfio-pci 0000:03:00.0: ",
                args=("navi10",),
            ),
        ),
    ),
)
