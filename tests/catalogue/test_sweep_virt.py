"""Virtualisation wordings added from the source in the virtualisation sweep: a virtqueue the
guest found corrupt, the SEV and TDX firmware that would not initialise, Hyper-V netvsc's
refused sends and the MANA NIC's silent hardware channel (kmsgd/catalogue/sweep_virt.py).
Each wording as its format prints it behind its printing macro's prefix, read through kmsgd's
own reader; the routine lines beside it that must not become culprits."""

from __future__ import annotations

import pytest

from tests.catalogue.lines import check_wording, tags_of

NETVSC = "hv_netvsc 000d3a1b-2c3d-000d-3a1b-2c3d000d3a1b eth0: "
MANA = "mana 7870:00:00.0: "
CCP = "ccp 0000:47:00.1: "

# tag → (lines that carry it, lines with the same words that must not)
SWEEP_VIRT_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "virtio_ring_broken": (
        [
            "virtio_net virtio0: output.0:id 39 is not a head!",
            "virtio_net virtio1: input.3:id 12 is not a head!",
            "virtio_blk virtio2: req.0:id 300 out of range",
            "virtio_crypto virtio0: dataq.0:id 3 is not a head!",
            "virtio_net virtio0: input.0:used len 1526 is larger than in buflen 1518",
        ],
        [
            # virtio's probe lines, printed on every boot of a guest
            "virtio_blk virtio2: [vda] 83886080 512-byte logical blocks (42.9 GB/40.0 GiB)",
            "virtio_net virtio0 enp1s0: renamed from eth0",
            "virtio-pci 0000:00:03.0: virtio_pci: leaving for legacy driver",
            "EDAC sbridge: Seeking for: PCI ID 8086:0ec8, id 5 out of range",
        ],
    ),
    "sev_init_failure": (
        [
            CCP + "SEV: failed to INIT error 0x1",
            CCP + "SEV: failed to INIT error 0x1, rc -5",
            CCP + "SEV-SNP: failed to INIT rc -5, error 0x3",
            CCP + "SEV-SNP: failed to INIT error 0x0",
        ],
        [
            CCP + "sev enabled",
            CCP + "SEV API:1.55 build:21",
            CCP + "SEV-SNP API:1.55 build:21",
            CCP + "SEV-SNP support requires firmware version >= 1:51",
        ],
    ),
    "tdx_module_init_failure": (
        [
            "virt/tdx: module initialization failed (-5)",
            "TDX module initialization failed (-22)",
        ],
        [
            "virt/tdx: module initialized",
            "virt/tdx: BIOS enabled: private KeyID range [16, 64)",
            "virt/tdx: 1050644 KB allocated for PAMT",
        ],
    ),
    "netvsc_send_failure": (
        [NETVSC + "Unable to send packet pages 2 len 1514, ret -22"],
        [
            NETVSC + "VF slot 1 added",
            NETVSC + "Data path switched to VF: enP30832s1",
            "Memory: 4022476K/4193764K available (14339K kernel code, 2388K rwdata)",
        ],
    ),
    "mana_hwc_timeout": (
        [
            MANA + "HWC: Request timed out!",
            MANA + "HWC: Request timed out: 30000 ms",
            MANA + "HWC: Request timed out: 30000 ms for command 0x10007",
        ],
        [
            MANA + "Microsoft Azure Network Adapter protocol version: 0.1.1",
            MANA + "enP30832s1: Configured vPort 0 PD 18 DB 16",
        ],
    ),
    "hyperv_host_shutdown_request": (
        [
            "hv_utils: Shutdown request received - graceful shutdown initiated",
            "hv_utils: Restart request received - graceful restart initiated",
        ],
        [
            # an unknown request the guest refuses, and the hibernation it runs instead
            "hv_utils: Shutdown request received - Invalid request",
            "hv_utils: Hibernation request received",
            "hv_utils: Heartbeat IC version 3.0",
            "hv_utils: Shutdown IC version 3.2",
        ],
    ),
    "pci_d3cold_resume_failure": (
        [
            "vfio-pci 0000:03:00.0: can't change power state from D3cold to D0 (config space "
            "inaccessible)",
        ],
        [
            # the PM capability's own refusal is reported on healthy devices at every suspend
            "vfio-pci 0000:41:00.0: Refused to change power state from D0 to D3hot",
            "vfio-pci 0000:41:00.0: refused to change power state from D0 to D3hot",
            # the ROM a guest's firmware reads on a GPU without one (or an all-ones BAR)
            "vfio-pci 0000:41:00.0: Invalid PCI ROM header signature: expecting 0xaa55, got 0xffff",
        ],
    ),
    "gve_device_failure": (
        [
            "gve 0000:00:04.0: AQ commands timed out, need to reset AQ",
            "gve 0000:00:04.0: Reset failed! !!! DISABLING ALL QUEUES !!!",
            "gve 0000:00:04.0: PCI reset failed! !!! DISABLING ALL QUEUES !!!",
            "gve 0000:00:04.0 ens4: Adjust queues failed! !!! DISABLING ALL QUEUES !!!",
            "gve 0000:00:04.0 ens4: Adjust config failed to start new queues, !!! DISABLING ALL "
            "QUEUES !!!",
        ],
        [
            # the resets that work, printed on a user's ethtool reset or a recovered one
            "gve 0000:00:04.0: Performing reset",
            "gve 0000:00:04.0: Perfmorming AQ reset",
            "gve 0000:00:04.0: Device link is up.",
            "gve 0000:00:04.0: GVE version 1.0.0",
        ],
    ),
    "kvm_vmx_instruction_failure": (
        [
            "kvm_intel: vmwrite failed: field=682a val=0 err=12",
            "vmwrite failed: field=682a val=0 err=12",
            "kvm: vmwrite failed: field=2 val=f2 err=0",
            "kvm: vmread failed: field=4402",
            "kvm_intel: vmclear failed: 00000000ab3c1e6f/1f6a0000 err=3",
            "kvm_intel: vmptrld failed: 00000000ab3c1e6f/1f6a0000 err=3",
            "kvm_intel: invept failed: ext=0x1 eptp=1f6a001e",
            "vmwrite error: reg 6c00 value 0 (err 12)",
            "kvm: vmptrld ffff8807f0b0c000/7f0b0c000 failed",
            "kvm: vmclear fail: ffff8807f0b0c000/7f0b0c000",
        ],
        [
            "kvm_intel: L1TF CPU bug present and SMT on, data leak possible.",
            "kvm: vcpu 0: requested 8000 ns lapic timer period limited to 200000 ns",
            "kvm [4242]: vcpu0, guest rIP: 0xffffffff8106a2c4 ignored rdmsr: 0x611 data 0x0",
        ],
    ),
    "efa_admin_timeout": (
        [
            "infiniband efa_0: The device didn't send any completion for admin cmd CREATE_QP(1) "
            "status 1 (ctx 0x00000000c0ffee00, sq producer: 12, sq consumer: 11, cq consumer: 11)",
            "infiniband efa_0: The device sent a completion but the driver didn't receive any "
            "MSI-X interrupt for admin cmd REG_MR(3) status 2 (ctx: 0x00000000c0ffee00, sq "
            "producer: 12, sq consumer: 11, cq consumer: 11)",
            "infiniband efa_0: Wait for completion (polling) timeout",
        ],
        [
            # ENA's own polling timeout (ena_com.c) and a verb the device refused
            "ena 0000:00:05.0: Wait for completion (polling) timeout",
            "infiniband efa_0: Failed to process command CREATE_AH (opcode 12) comp_status 7 "
            "err -22",
            "efa 0000:00:06.0: Setup irqs done",
        ],
    ),
}

# QEMU's lines, as the journal has them under its program name
QEMU_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "kvm_vm_entry_failure": (
        [
            "KVM: entry failed, hardware error 0x80000021",
            "KVM internal error. Suberror: 1",
        ],
        [
            "KVM: Failed to create TCE table for liobn 0x80000000",
            "kvm_init_vcpu: kvm_arch_init_vcpu failed (0): Operation not permitted",
        ],
    ),
}


def _qemu(line: str) -> set[str]:
    return tags_of(f"qemu-system-x86_64[4242]: {line}", facility=3)


@pytest.mark.parametrize("tag", sorted(SWEEP_VIRT_EXAMPLES))
def test_the_source_wording_matches_and_the_lines_beside_it_do_not(tag: str) -> None:
    check_wording(SWEEP_VIRT_EXAMPLES, tag, tags_of)


def test_qemus_report_of_a_refused_vm_entry_is_the_kernels_vmcs_dump() -> None:
    check_wording(QEMU_EXAMPLES, "kvm_vm_entry_failure", _qemu)
    # the same words from another program, or as a kernel line, are not QEMU's
    assert "kvm_vm_entry_failure" not in tags_of("KVM: entry failed, hardware error 0x80000021")


def test_kvms_guest_and_reboot_lines_are_no_culprit() -> None:
    # arch/x86/kernel/kvm.c, kvmclock.c: a KVM guest's boot lines; virt/kvm/kvm_main.c
    # kvm_reboot's pr_info at every host reboot
    for line in (
        "kvm-clock: Using msrs 4b564d01 and 4b564d00",
        "kvm-clock: cpu 0, msr 1f601001, primary cpu clock",
        "KVM setup pv remote TLB flush",
        "kvm-guest: PV spinlocks enabled",
        "kvm: exiting hardware virtualization",
        "clocksource: Switched to clocksource kvm-clock",
    ):
        assert not tags_of(line), line
