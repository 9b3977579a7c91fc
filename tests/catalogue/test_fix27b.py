"""The host wordings corpus batch 27 (docs/accuracy.md) showed no entry read: KVM's VMCS/VMCB
dump of a refused VM entry, an Intel VF's rejected mailbox requests, a failed CIFS mount,
Hyper-V storvsc's failed data commands, multipathd's path checkers, ice in Safe Mode, the
bonding driver's downdelay notice, x86's double fault; each line written from its source's
format string (file named in the catalogue entry), the lines printed beside them that must
not match, and what the judge makes of them."""

from __future__ import annotations

from kmsgd.catalogue.table import match_record
from kmsgd.ring.records import KernelRecord
from tests.catalogue.lines import check_wording, paste_primary, primary_of

# tag → (positives, negatives)
FIX27B_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "kvm_vm_entry_failure": (
        [
            "kvm_intel: VMCS 0000000012345678, last attempted VM-entry on CPU 11",
            "kvm_intel: *** Guest State ***",
            "*** Guest State ***",
            "SVM: VMCB Control Area:",
            "kvm_amd: VMCB 00000000deadbeef, last attempted VMRUN on CPU 2",
            "kvm_amd: SEV-ES vCPU0 VMCB 00000000cafe0000, last attempted VMRUN on CPU 5",
        ],
        [
            # the dump's other sections and lines, the hint when dumping is off
            "kvm_intel: *** Host State ***",
            "kvm_intel: *** Control State ***",
            "kvm_intel: CR3 = 0x0000000100f00000",
            "kvm_amd: set kvm_amd.dump_invalid_vmcb=1 to dump internal KVM state.",
            "kvm [1234]: vcpu0, guest rIP: 0xfffff80000001000 unhandled rdmsr: 0x611",
        ],
    ),
    "iavf_pf_error": (
        [
            "iavf 0000:3b:02.0: PF returned error -5 (IAVF_ERR_PARAM) to our request 6",
            "i40evf 0000:03:0a.1: PF returned error -53 (I40E_ERR_ADMIN_QUEUE_ERROR) to our "
            "request 10",
            "iavf 0000:3b:02.0: Failed to add MAC filter, error IAVF_ERR_INVALID_MAC_ADDR",
            "iavf 0000:3b:02.0: Failed to delete MAC filter, error IAVF_ERR_PARAM",
            "iavf 0000:3b:02.0: Failed to add VLAN filter, error IAVF_NOT_SUPPORTED",
        ],
        [
            # the PF's reset notices and the VF's link are routine
            "iavf 0000:3b:02.0: Reset indication received from the PF",
            "iavf 0000:3b:02.0 ens1f0v0: NIC Link is Up Speed is 25 Gbps Full Duplex",
            "iavf 0000:3b:02.0: Changing VLAN Stripping is not allowed when Port VLAN is "
            "configured",
        ],
    ),
    "cifs_mount_failure": (
        [
            "CIFS VFS: Error connecting to socket. Aborting operation.",
            "CIFS VFS: Error connecting to socket. Aborting operation",
            "CIFS: VFS: Error connecting to socket. Aborting operation.",
            "CIFS VFS: cifs_mount failed w/return code = -101",
            "CIFS: VFS: cifs_mount failed w/return code = -13",
        ],
        [
            "CIFS: Attempting to mount //192.168.1.10/share",
            "CIFS: VFS: \\\\nas Send error in SessSetup = -13",
            "mount error(115): Operation now in progress",
        ],
    ),
    "disk_io_error": (
        [
            "hv_storvsc 0e4c63b1-71b3-4c8b-9a4f-2b7fdc3f5e01: tag#17 cmd 0x2a status: scsi 0x2 "
            "srb 0x4 hv 0xc0000001",
            "hv_storvsc 0e4c63b1-71b3-4c8b-9a4f-2b7fdc3f5e01: tag#3 cmd 0x88 status: scsi 0x2 "
            "srb 0x4 host 0xc0000001",
            "hv_storvsc vmbus_0_4: cmd 0x28 scsi status 0x2 srb status 0x4",
        ],
        [
            # probes Hyper-V rejects on healthy guests: TEST UNIT READY, ATA pass-through,
            # REPORT LUNS
            "hv_storvsc 0e4c63b1-71b3-4c8b-9a4f-2b7fdc3f5e01: tag#0 cmd 0x0 status: scsi 0x2 "
            "srb 0x4 hv 0xc0000001",
            "hv_storvsc 0e4c63b1-71b3-4c8b-9a4f-2b7fdc3f5e01: tag#1 cmd 0xa1 status: scsi 0x2 "
            "srb 0x86 hv 0xc0000001",
            "hv_storvsc vmbus_0_4: cmd 0xa0 scsi status 0x2 srb status 0x4",
        ],
    ),
    "firmware_load_failure": (
        [
            "ice 0000:17:00.0: The DDP package file was not found or could not be read. "
            "Entering Safe Mode",
            "ice 0000:17:00.0: The DDP package file is invalid. Entering Safe Mode.",
            "ice 0000:17:00.0: The firmware loaded on the device is not compatible with the DDP "
            "package.  Please update the device's NVM.  Entering safe mode.",
            "ice 0000:17:00.0: Package download failed. Advanced features disabled - Device in "
            "Safe Mode",
        ],
        [
            # the optional per-device package the driver asks for first, a loaded package
            "ice 0000:17:00.0: The DDP package was successfully loaded: ICE OS Default Package "
            "version 1.3.30.0",
            "ice 0000:17:00.0: Direct firmware load for intel/ice/ddp/ice-0123456789abcdef.pkg "
            "failed with error -2",
        ],
    ),
    "nic_probe_failure": (
        [
            "ice 0000:ca:00.0: Get PHY capabilities failed status = -5, continuing anyway",
            "ice 0000:ca:00.0: Get PHY capability failed.",
            "ice 0000:ca:00.0: ice_init_nvm_phy_type failed: -5",
            "ice 0000:ca:00.0: ice_init_phy_user_cfg failed: -5",
        ],
        [
            # the link report's own read of the active configuration, a loaded package
            "ice 0000:ca:00.0 eth0: Get phy capability failed.",
            "ice 0000:ca:00.0: The DDP package was successfully loaded: ICE OS Default Package "
            "version 1.3.28.0",
        ],
    ),
    "bond_link_down": (
        [
            "bond0: (slave eno1): link status down for interface, disabling it in 200 ms",
            "bond0: (slave eno1): link status down for active interface, disabling it in 100 ms",
            "bond0: link status down for interface eth1, disabling it in 400 ms",
            "bonding: bond0: link status down for backup interface eth0, disabling it in 200 ms.",
        ],
        [
            "bond0: (slave eno1): link status up again after 0 ms",
            "bond0: link status up for interface eth1, enabling it in 200 ms",
            "bond0: (slave eno1): link status up, enabling it in 200 ms",
        ],
    ),
}


def _user_tags(line: str) -> set[str]:
    return {h.tag for h in match_record(KernelRecord(line, facility=3))}


def _tags(line: str) -> set[str]:
    return {h.tag for h in match_record(KernelRecord(line, facility=0))}


def test_wording() -> None:
    for tag in sorted(FIX27B_EXAMPLES):
        check_wording(FIX27B_EXAMPLES, tag)


def test_multipathd_s_checker_is_a_path_failure_and_only_from_multipathd() -> None:
    # libmultipath/checkers/tur.c, rdac.c as multipathd logs them; multipathd/main.c
    for line in (
        "multipathd[4554]: mpathb: sdc - tur checker reports path is down",
        "multipathd: sdh: rdac checker reports path is down",
        "multipathd[901]: checker failed path 8:32 in map 3600a098038303053453f463045727a44",
        "multipathd[901]: mpatha: sdd - directio checker reports path is down",
    ):
        assert "multipath_path_failure" in _user_tags(line), line
    # its recoveries and summaries, and the words in a kernel line or another program's
    for line in (
        "multipathd[4554]: mpathb: sdc - tur checker reports path is up",
        "multipathd[4554]: mpathb: remaining active paths: 1",
        "multipathd[4554]: sdc: mark as failed",
    ):
        assert "multipath_path_failure" not in _user_tags(line), line
    assert "multipath_path_failure" not in _tags("tur checker reports path is down")
    assert "multipath_path_failure" not in _user_tags(
        "myscript[12]: sdc - tur checker reports path is down"
    )


def test_a_double_fault_is_a_panic() -> None:
    # arch/x86/kernel/traps.c exc_double_fault: pr_emerg, die(), panic("Machine halted.")
    assert "kernel_panic" in _tags("traps: PANIC: double fault, error_code: 0x0")
    assert primary_of("PANIC: double fault, error_code: 0x0") == "kernel_panic"
    assert (
        primary_of(
            "PANIC: double fault, error_code: 0x0",
            "double fault: 0000 [#1] SMP",
            "Kernel panic - not syncing: Fatal exception in interrupt",
        )
        == "kernel_panic"
    )


def test_a_refused_vm_entry_leads_over_routine_kvm_notices() -> None:
    assert (
        primary_of(
            "kvm [3412]: vcpu0, guest rIP: 0xfffff8019c8d6103 unhandled rdmsr: 0x611",
            "kvm_intel: VMCS 00000000aabbccdd, last attempted VM-entry on CPU 3",
            "kvm_intel: *** Guest State ***",
            "kvm_intel: CR0: actual=0x0000000080050033, shadow=0x0000000080050033, "
            "gh_mask=fffffffffffefff7",
        )
        == "kvm_vm_entry_failure"
    )


def test_a_failed_cifs_mount_is_blamed_alone_not_over_a_real_failure() -> None:
    assert (
        primary_of(
            "CIFS: VFS: Error connecting to socket. Aborting operation.",
            "CIFS: VFS: cifs_mount failed w/return code = -115",
        )
        == "cifs_mount_failure"
    )
    assert (
        primary_of(
            "CIFS: VFS: cifs_mount failed w/return code = -115",
            "nvme nvme0: I/O 12 QID 3 timeout, aborting",
        )
        != "cifs_mount_failure"
    )


def test_a_pasted_ice_safe_mode_is_the_missing_package() -> None:
    text = (
        "ice 0000:b1:00.0: Direct firmware load for intel/ice/ddp/ice.pkg failed with error -2\n"
        "ice 0000:b1:00.0: The DDP package file was not found or could not be read. Entering "
        "Safe Mode\n"
    )
    assert paste_primary(text) == "firmware_load_failure"


def test_ice_s_unreadable_phy_is_blamed_alone_and_its_probe_failure_leads() -> None:
    warn = "ice 0000:ca:00.0: Get PHY capabilities failed status = -5, continuing anyway"
    assert primary_of(warn) == "nic_probe_failure"
    # routine alone: a real failure after it leads
    assert primary_of(warn, "nvme nvme0: I/O 12 QID 3 timeout, aborting") != "nic_probe_failure"
