"""The virtualisation source sweep: failures that cloud guests and hosts print.

A virtqueue the guest finds corrupt (drivers/virtio/virtio_ring.c BAD_RING), the AMD PSP's
SEV and SEV-SNP firmware that would not initialise (drivers/crypto/ccp/sev-dev.c), the Intel
TDX module that would not initialise (arch/x86/virt/vmx/tdx/tdx.c), Hyper-V netvsc's sends
the host refused (drivers/net/hyperv/netvsc.c) and the Azure MANA NIC's hardware channel that
stopped answering (drivers/net/ethernet/microsoft/mana/hw_channel.c). Each wording as its
format prints it behind its printing macro's prefix; tests/catalogue/test_sweep_virt.py
renders them and holds the routine lines beside them out.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig, wording
from kmsgd.catalogue.hardware import STORAGE_SIGNATURES
from kmsgd.catalogue.host_words import HOST_WORDS_SIGNATURES

VIRT = "virt"
NET = "net"


def _entry(entries: tuple[Signature, ...], tag: str) -> Signature:
    return next(e for e in entries if e.tag == tag)


_D3COLD = _entry(STORAGE_SIGNATURES, "pci_d3cold_resume_failure")
_VM_ENTRY = _entry(HOST_WORDS_SIGNATURES, "kvm_vm_entry_failure")

SWEEP_VIRT_SIGNATURES: tuple[Signature, ...] = (
    # drivers/virtio/virtio_ring.c BAD_RING (4.4-6.18): dev_err(&vq->vq.vdev->dev, "%s:" fmt,
    # vq->vq.name) and vq->broken = true. virtqueue_get_buf_ctx_split/_packed (and
    # virtqueue_get_buf before 4.15's ctx variant): "id %u out of range", "id %u is not a
    # head!"; 5.19's used-length check "used len %d is larger than in buflen %u". The queue is
    # marked broken: every later buffer on it is refused, so the virtio NIC stops sending (a
    # netdev watchdog timeout follows) or the virtio disk's I/O hangs. The device and the
    # queue's name say which: "virtio_net virtio0: output.0:", "virtio_blk virtio2: req.0:".
    sig(
        "virtio_ring_broken",
        r"\bvirtio\d+: [\w.-]+:(?:id \d+ (?:is not a head!|out of range)"
        r"|used len \d+ is larger than in buflen \d+)",
        ("head", "range", "buflen"),
        Severity.ERROR,
        VIRT,
        "A virtio device's queue was found corrupt (the host handed back a buffer id the "
        "guest never queued) and the guest marked it broken: that virtual NIC or disk stops "
        "working until the guest reboots.",
        "A host-side (QEMU/vhost, or a DPU's virtio back end) bug or memory corruption: note "
        "the host's QEMU/kernel versions and the device (output.N = a NIC's transmit queue, "
        "req.N = a disk), and report it to the host's operator.",
        60,
        formats=(
            Format(
                "%s:id %u is not a head!",
                "drivers/virtio/virtio_ring.c",
                "4.4-6.18",
                "virtio_net virtio0: ",
                args=("output.0", 39),
            ),
            Format(
                "%s:id %u out of range",
                "drivers/virtio/virtio_ring.c",
                "4.4-6.18",
                "virtio_blk virtio2: ",
                args=("req.0", 300),
            ),
            Format(
                "%s:used len %d is larger than in buflen %u",
                "drivers/virtio/virtio_ring.c",
                "5.19",
                "virtio_net virtio0: ",
                args=("input.0", 1526, 1518),
            ),
        ),
    ),
    # drivers/crypto/ccp/sev-dev.c sev_pci_init: dev_err "SEV: failed to INIT error %#x"
    # (5.0-5.15), "SEV: failed to INIT error %#x, rc %d" (5.16-6.8), "SEV-SNP: failed to INIT
    # error %#x" (6.8's SNP host support), and __sev_snp_init_locked / _sev_platform_init_locked
    # "SEV-SNP: failed to INIT rc %d, error %#x" (6.9-6.18). The PSP firmware refused the
    # platform INIT (old firmware, SNP enabled in the BIOS without its memory reserved, an
    # RMP table not set up): no SEV/SEV-ES/SEV-SNP guest can start on the host.
    sig(
        "sev_init_failure",
        r"\bSEV(?:-SNP)?: failed to INIT\b",
        ("INIT",),
        Severity.ERROR,
        VIRT,
        "The AMD secure processor's SEV firmware would not initialise: no confidential "
        "(SEV, SEV-ES or SEV-SNP) virtual machine can start on this host.",
        "Update the SEV firmware (amd_sev_fam19h_*.sbin in /lib/firmware/amd) and the BIOS; "
        "for SNP, check SNP and its memory coverage are enabled in the BIOS and the IOMMU is "
        "on; the error code is the PSP's status (SEV API spec).",
        40,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "SEV: failed to INIT error %#x",
                "drivers/crypto/ccp/sev-dev.c",
                "5.0-5.15",
                "ccp 0000:47:00.1: ",
                args=(1,),
            ),
            Format(
                "SEV: failed to INIT error %#x, rc %d",
                "drivers/crypto/ccp/sev-dev.c",
                "5.16-6.18",
                "ccp 0000:47:00.1: ",
                args=(1, -5),
            ),
            Format(
                "SEV-SNP: failed to INIT rc %d, error %#x",
                "drivers/crypto/ccp/sev-dev.c",
                "6.9-6.18",
                "ccp 0000:47:00.1: ",
                args=(-5, 3),
            ),
        ),
    ),
    # arch/x86/virt/vmx/tdx/tdx.c __tdx_enable (6.8-6.18, pr_fmt "virt/tdx: "): pr_err "module
    # initialization failed (%d)" (the series' "TDX module initialization failed (%d)" in
    # the KVM TDX trees): KVM asked the TDX module to configure itself and it failed; no TD
    # (TDX guest) can start until the host reboots.
    sig(
        "tdx_module_init_failure",
        r"\b(?:virt/tdx: |TDX[ -][Mm]odule )(?:module )?initialization failed \(-?\d+\)",
        ("tdx", "TDX"),
        Severity.ERROR,
        VIRT,
        "The Intel TDX module would not initialise: no trust-domain (TDX) virtual machine can "
        "start on this host until it reboots.",
        "Check the TDX module and the BIOS (TME-MT, TDX and SEAM loader enabled, memory "
        "populated evenly on every channel) against the platform's TDX guide; the code is the "
        "kernel's errno.",
        40,
        formats=(
            Format(
                "module initialization failed (%d)",
                "arch/x86/virt/vmx/tdx/tdx.c",
                "6.8-6.18",
                "virt/tdx: ",
                args=(-5,),
            ),
            Format(
                "TDX module initialization failed (%d)",
                "arch/x86/virt/vmx/tdx/tdx.c",
                "KVM TDX series v14 (the tree read)",
                args=(-22,),
            ),
        ),
    ),
    # drivers/net/hyperv/netvsc.c netvsc_send_pkt (4.11-6.18): netdev_err "Unable to send
    # packet pages %u len %u, ret %d" when vmbus refuses the send for another reason than a
    # full ring (-EAGAIN and -ENOSPC only stop the queue, quietly): the channel to the host is
    # gone (rescinded, the host's vSwitch reset) and the synthetic NIC drops everything it
    # sends.
    sig(
        "netvsc_send_failure",
        r"\bUnable to send packet pages \d+ len \d+, ret -?\d+",
        ("pages",),
        Severity.ERROR,
        NET,
        "The Hyper-V/Azure synthetic NIC (netvsc) could not hand packets to the host: its "
        "vmbus channel failed, and the guest's network stops on that interface.",
        "Check the host side (Azure: the VM's resource health, a host update or live "
        "migration at that time); the ret is the vmbus error (-ENODEV: the channel was "
        "rescinded).",
        50,
        formats=(
            Format(
                "Unable to send packet pages %u len %u, ret %d",
                "drivers/net/hyperv/netvsc.c",
                "4.11-6.18",
                "hv_netvsc 000d3a1b-2c3d-000d-3a1b-2c3d000d3a1b eth0: ",
                args=(2, 1514, -22),
            ),
        ),
    ),
    # drivers/net/ethernet/microsoft/mana/hw_channel.c mana_hwc_send_request: dev_err "HWC:
    # Request timed out!" (5.13-6.8), "HWC: Request timed out: %u ms" (6.9-6.12), "HWC:
    # Request timed out: %u ms for command 0x%x" (6.13-6.18): the MANA NIC's firmware stopped
    # answering its hardware channel; the "Failed to send mana message: -110" and "Failed to
    # create WQ object" lines after it are its consequence, and the VF stays down until the
    # host resets it (Azure: a host servicing event).
    sig(
        "mana_hwc_timeout",
        r"\bHWC: Request timed out\b",
        ("HWC",),
        Severity.ERROR,
        NET,
        "The Azure MANA NIC's firmware stopped answering the driver's hardware channel: its "
        "queues cannot be created or changed, and the accelerated network is down until the "
        "host resets the device.",
        "Check the Azure host side at that time (resource health, host servicing, a MANA "
        "firmware update); the synthetic netvsc path carries traffic meanwhile if it is up.",
        50,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "HWC: Request timed out!",
                "drivers/net/ethernet/microsoft/mana/hw_channel.c",
                "5.13-6.8",
                "mana 7870:00:00.0: ",
            ),
            Format(
                "HWC: Request timed out: %u ms",
                "drivers/net/ethernet/microsoft/mana/hw_channel.c",
                "6.9-6.12",
                "mana 7870:00:00.0: ",
                args=(30000,),
            ),
            Format(
                "HWC: Request timed out: %u ms for command 0x%x",
                "drivers/net/ethernet/microsoft/mana/hw_channel.c",
                "6.13-6.18",
                "mana 7870:00:00.0: ",
                args=(30000, 0x10007),
            ),
        ),
    ),
    # drivers/hv/hv_util.c shutdown_onchannelcallback (pr_fmt "hv_utils: "): pr_info
    # "Shutdown request received - graceful shutdown initiated" (4.4-6.18) and "Restart
    # request received - graceful restart initiated" (6.1-6.18): the Hyper-V/Azure host asked
    # the guest to power off or restart (Stop-VM, an Azure stop/deallocate or redeploy) and
    # hv_utils runs orderly_poweroff / orderly_reboot. Only a request: the guest's own
    # shutdown lines (clean_shutdown_marker) say whether it was carried out (an init that
    # ignores the poweroff leaves the guest running), so it is routine, never a culprit.
    # "Shutdown request received - Invalid request" (an unknown flag, refused) is not one.
    sig(
        "hyperv_host_shutdown_request",
        r"^hv_utils: (?:Shutdown request received - graceful shutdown|Restart request "
        r"received - graceful restart) initiated",
        ("graceful",),
        Severity.INFO,
        VIRT,
        "The Hyper-V (Azure) host asked this guest to shut down or restart (Stop-VM, an Azure "
        "stop, deallocate or redeploy).",
        "None if the guest then shut down; the host's or Azure's activity log says who asked. "
        "If it kept running, its init did not act on the poweroff.",
        100,  # never blamed (rank 100): lifecycle evidence
        formats=(
            Format(
                "Shutdown request received - graceful shutdown initiated",
                "drivers/hv/hv_util.c",
                "4.4-6.18",
                "hv_utils: ",
            ),
            Format(
                "Restart request received - graceful restart initiated",
                "drivers/hv/hv_util.c",
                "6.1-6.18",
                "hv_utils: ",
            ),
        ),
    ),
    # drivers/pci/pci.c pci_raw_set_power_state (5.4-5.19): pci_err "can't change power state
    # from %s to %s (config space inaccessible)", the wording 6.0 changed to "Unable to change
    # power state from %s to %s, device inaccessible" (pci_d3cold_resume_failure's own): a
    # passed-through or runtime-suspended device that never came back from D3cold
    wording(
        _D3COLD,
        r"\bcan't change power state from D3cold to D0 \(config space inaccessible\)",
        ("inaccessible",),
        formats=(
            Format(
                "can't change power state from %s to %s (config space inaccessible)",
                "drivers/pci/pci.c",
                "5.4-5.19",
                "vfio-pci 0000:03:00.0: ",
                args=("D3cold", "D0"),
            ),
        ),
    ),
    # QEMU's own report of the VM entry the CPU refused (accel/kvm/kvm-all.c kvm_cpu_exec on
    # KVM_EXIT_FAIL_ENTRY, kvm_handle_internal_error): fprintf "KVM: entry failed, hardware
    # error 0x%" PRIx64 (QEMU 1.x-10.x), "KVM internal error. Suberror: %d" (QEMU 1.x-10.x),
    # in the VM's log (libvirt's /var/log/libvirt/qemu/<vm>.log, the journal under the
    # program's name): the same event as kvm_vm_entry_failure's VMCS/VMCB dump, from the
    # VMM's side; that VM is stopped.
    wording(
        _VM_ENTRY,
        r"^KVM: entry failed, hardware error 0x[0-9a-f]+|^KVM internal error\. Suberror: \d+",
        ("entry", "Suberror"),
        idents=("qemu-system-x86_64", "qemu-kvm", "qemu-system-aarch64"),
        formats=(
            Format(
                "KVM: entry failed, hardware error 0x%" + "llx",
                "qemu:accel/kvm/kvm-all.c",
                "QEMU 2.0-10.0 (the copies read)",
                program="qemu-system-x86_64",
                args=(0x80000021,),
            ),
            Format(
                "KVM internal error. Suberror: %d",
                "qemu:accel/kvm/kvm-all.c",
                "QEMU 2.0-10.0 (the copies read)",
                program="qemu-system-x86_64",
                args=(1,),
            ),
        ),
    ),
)
