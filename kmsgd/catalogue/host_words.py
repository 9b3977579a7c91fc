"""Host-side wordings corpus batch 27 (docs/accuracy.md) showed no entry read: KVM's dump of a
VM entry the CPU refused, an Intel VF whose PF rejects its mailbox requests, a CIFS mount whose
connect fails, Hyper-V storvsc's failed data commands, multipathd's path checkers, ice in Safe
Mode without its DDP package or unable to read its PHY at init, and the bonding driver's
downdelay notice. Each entry is written from the format string of the source file it names;
the userspace one (multipathd) applies to that program's lines only.
"""

from __future__ import annotations

from kmsgd.catalogue.base import Format, Severity, Signature, sig

_VIRT = "virt"
_NET = "net"
_STORAGE = "storage"
_FS = "fs"
# SCSI data commands (READ/WRITE 6/10/12/16, SYNCHRONIZE CACHE 10/16): the opcodes whose
# failure is lost data; storvsc also fails probes (TEST UNIT READY 0x0, INQUIRY, ATA
# pass-through 0x85/0xa1 from smartd, REPORT LUNS) on healthy guests
_DATA_OPS = r"0x(?:8|a|28|2a|a8|aa|88|8a|35|91)"

HOST_WORDS_SIGNATURES: tuple[Signature, ...] = (
    # arch/x86/kvm/vmx/vmx.c dump_vmcs (vmx.c before 4.19): called from vmx_handle_exit when
    # the CPU refuses a VM entry (invalid guest state, failed entry checks) or an exit is
    # unexpected; pr_err "*** Guest State ***" opens the guest section (4.x-6.18, after
    # 5.10's "VMCS %p, last attempted VM-entry on CPU %d"), pr_fmt "kvm_intel: " on 6.x.
    # 5.3+ dumps only with kvm_intel.dump_invalid_vmcs=1. AMD's twin, arch/x86/kvm/svm/svm.c
    # dump_vmcb on SVM_EXIT_ERR (VMRUN refused) or an invalid exit: "VMCB Control Area:"
    # (4.x-6.18), after "VMCB %p, last attempted VMRUN on CPU %d" (5.11+; "%s VMCB %p, …"
    # and "%s vCPU%u VMCB %p, …" with SVM/SEV/SEV-ES/SEV-SNP on 6.x). The guest is stopped
    # (QEMU reports KVM_EXIT_FAIL_ENTRY or an internal error); the host runs on.
    sig(
        "kvm_vm_entry_failure",
        r"^(?:\S+: )?\*\*\* Guest State \*\*\*"
        r"|\bVMCS [0-9a-f]+, last attempted VM-entry on CPU \d+"
        r"|\bVMCB (?:Control Area:|[0-9a-fx]+, last attempted VMRUN on CPU \d+)"
        r"|\bvCPU\d+ VMCB [0-9a-fx]+, last attempted VMRUN on CPU \d+",
        ("Guest", "VMCS", "VMCB"),
        Severity.ERROR,
        _VIRT,
        "KVM dumped a virtual CPU's VMCS/VMCB: the CPU refused to enter the guest (invalid "
        "guest state) or the guest exited in a way KVM cannot handle; that VM is stopped.",
        "Read the dump's guest state (CR0/CR4, segment registers, RIP) for the invalid field; "
        "try a newer kernel or QEMU/firmware, and check nested virtualisation and SMM "
        "settings of the VM.",
        50,
        formats=(
            Format("*** Guest State ***", "arch/x86/kvm/vmx.c", "4.4-4.18"),
            Format("*** Guest State ***", "arch/x86/kvm/vmx/vmx.c", "4.19-6.18", "kvm_intel: "),
            Format(
                "VMCS %p, last attempted VM-entry on CPU %d",
                "arch/x86/kvm/vmx/vmx.c",
                "5.10-6.18",
                "kvm_intel: ",
                args=("00000000f971be22", 3),
            ),
            Format("VMCB Control Area:", "arch/x86/kvm/svm/svm.c", "4.4-6.18", "SVM: "),
            Format(
                "VMCB %p, last attempted VMRUN on CPU %d",
                "arch/x86/kvm/svm/svm.c",
                "5.11-6.10",
                "kvm_amd: ",
                args=("00000000a4006788", 81),
            ),
            Format(
                "%s vCPU%u VMCB %p, last attempted VMRUN on CPU %d",
                "arch/x86/kvm/svm/svm.c",
                "6.12-6.18",
                "kvm_amd: ",
                args=("SEV-SNP", 1, "00000000759a48a5", 7),
            ),
        ),
    ),
    # drivers/net/ethernet/intel/iavf/iavf_virtchnl.c iavf_virtchnl_completion (i40evf's
    # i40evf_virtchnl.c before 4.17): the PF answered a virtchnl request of this VF with an
    # error: dev_err "PF returned error %d (%s) to our request %d" (4.4-6.18), and the
    # requests it names, dev_err/dev_warn "Failed to add MAC filter, error %s", "Failed to
    # delete MAC filter, error %s", "Failed to add VLAN filter, error %s", "Failed to delete
    # VLAN filter, error %s" (4.14-6.18). The VF loses what it asked for (queues, filters,
    # RSS); a PF that resets it again and again leaves it unusable
    sig(
        "iavf_pf_error",
        r"\bPF returned error -?\d+ \(\w+\) to our request \d+"
        r"|\bFailed to (?:add|delete) (?:MAC|VLAN) filter, error \w+",
        ("PF", "MAC", "VLAN"),
        Severity.ERROR,
        _NET,
        "The PF driver rejected a request of an Intel SR-IOV virtual function (iavf/i40evf): "
        "the VF did not get the queues, filters or settings it asked for.",
        "Check the PF driver (ice/i40e) version against the VF's, the VF's trust/spoof-check "
        "settings and MAC/VLAN limits on the host (ip link show), and the PF's own log lines.",
        48,
        formats=(
            Format(
                "PF returned error %d (%s) to our request %d",
                "drivers/net/ethernet/intel/iavf/iavf_virtchnl.c",
                "4.17-6.18",
                "iavf 0000:ec:01.1: ",
                args=(-64, "IAVF_NOT_SUPPORTED", 51),
            ),
            Format(
                "PF returned error %d (%s) to our request %d",
                "drivers/net/ethernet/intel/i40evf/i40evf_virtchnl.c",
                "4.4-4.16",
                "i40evf 0000:03:02.0: ",
                args=(-5, "I40E_ERR_PARAM", 3),
            ),
            Format(
                "Failed to add MAC filter, error %s",
                "drivers/net/ethernet/intel/iavf/iavf_virtchnl.c",
                "4.17-6.18",
                "iavf 0000:ec:01.1: ",
                args=("IAVF_NOT_SUPPORTED",),
            ),
            Format(
                "Failed to delete VLAN filter, error %s",
                "drivers/net/ethernet/intel/iavf/iavf_virtchnl.c",
                "4.17-6.18",
                "iavf 0000:ec:01.1: ",
                args=("IAVF_ERR_PARAM",),
            ),
        ),
    ),
    # fs/cifs/connect.c cifs_get_tcp_session (fs/smb/client/connect.c 6.4+): the TCP connect
    # to the SMB server failed: cERROR "Error connecting to socket. Aborting operation"
    # (2.6.3x-3.10), cifs_dbg(VFS, "… operation.") (3.11-6.18); then fs/cifs/cifsfs.c
    # cifs_do_mount / cifs_smb3_do_mount "cifs_mount failed w/return code = %d" (2.6.3x-
    # 6.18). The prefix is "CIFS VFS: " until 5.7, "CIFS: VFS: " (pr_fmt "CIFS: ") from 5.8.
    # The share is not mounted; a box keeps running, so it leads only alone
    sig(
        "cifs_mount_failure",
        r"\bCIFS:? VFS: (?:Error connecting to socket\. Aborting operation\b"
        r"|cifs_mount failed w/return code = -?\d+)",
        ("Aborting", "cifs_mount"),
        Severity.ERROR,
        _FS,
        "A CIFS/SMB mount failed: the kernel could not connect to the server (or the server "
        "refused the mount); the share is not mounted.",
        "Check the server's address and port 445 from this host (firewall, VPN, DNS), the "
        "share name, credentials and the vers= option; the return code names the error "
        "(-115/-110 no connection, -13 access denied, -2 no such share).",
        60,
        routine=True,
        formats=(
            Format(
                "Error connecting to socket. Aborting operation.",
                "fs/cifs/connect.c",
                "3.11-5.7",
                "CIFS VFS: ",
            ),
            Format(
                "Error connecting to socket. Aborting operation.",
                "fs/smb/client/connect.c",
                "6.4-6.18",
                "CIFS: VFS: ",
            ),
            Format(
                "cifs_mount failed w/return code = %d",
                "fs/cifs/cifsfs.c",
                "2.6.32-5.7",
                "CIFS VFS: ",
                args=(-115,),
            ),
            Format(
                "cifs_mount failed w/return code = %d",
                "fs/smb/client/cifsfs.c",
                "6.4-6.18",
                "CIFS: VFS: ",
                args=(-113,),
            ),
        ),
    ),
    # drivers/scsi/storvsc_drv.c storvsc_on_io_completion: a command the Hyper-V host
    # completed with a SCSI or SRB error: storvsc_log "tag#%d cmd 0x%x status: scsi 0x%x srb
    # 0x%x hv 0x%x" (5.10-6.12; "… host 0x%x" 6.13+), "cmd 0x%x scsi status 0x%x srb status
    # 0x%x" before. Only the data commands (reads, writes, cache flushes) are failed I/O; the
    # probes Hyper-V rejects on healthy guests (TEST UNIT READY, logged as a warning from
    # 5.14, ATA pass-through from smartd, INQUIRY) tag nothing
    sig(
        "disk_io_error",
        rf"\b(?:tag#\d+ )?cmd {_DATA_OPS} (?:status: scsi 0x[0-9a-f]+ srb 0x[0-9a-f]+ "
        rf"(?:hv|host) 0x[0-9a-f]+|scsi status 0x[0-9a-f]+ srb status 0x[0-9a-f]+)",
        ("srb",),
        Severity.ERROR,
        _STORAGE,
        "A Hyper-V virtual disk (storvsc) failed a read, write or flush: the host returned "
        "a SCSI/SRB error for it.",
        "Check the host side of the VM's disk (the VHDX, its storage, free space on the host) "
        "and the guest's file system; a flood of one repeated command may be a retried probe.",
        54,
        formats=(
            Format(
                "tag#%d cmd 0x%x status: scsi 0x%x srb 0x%x hv 0x%x",
                "drivers/scsi/storvsc_drv.c",
                "5.10-6.12",
                "hv_storvsc fd1d2cbd-ce7c-535c-966b-eb5f811c95f0: ",
                args=(683, 0x28, 2, 4, 0xC0000001),
            ),
            Format(
                "tag#%d cmd 0x%x status: scsi 0x%x srb 0x%x host 0x%x",
                "drivers/scsi/storvsc_drv.c",
                "6.13-6.18",
                "hv_storvsc fd1d2cbd-ce7c-535c-966b-eb5f811c95f0: ",
                args=(12, 0x2A, 2, 4, 0xC0000001),
            ),
            Format(
                "cmd 0x%x scsi status 0x%x srb status 0x%x",
                "drivers/scsi/storvsc_drv.c",
                "4.4-5.9",
                "hv_storvsc vmbus_0_1: ",
                args=(0x28, 2, 4),
            ),
        ),
    ),
    # multipath-tools (multipathd) libmultipath/checkers: a path checker found a path down:
    # tur.c MSG_TUR_DOWN "tur checker reports path is down", directio.c, readsector0.c,
    # rdac.c, cciss_tur.c, emc_clariion.c, hp_sw.c the same with their name (0.4.x-0.8.x),
    # checkers.c's generic " reports path is down" after "%s checker" (0.8+), logged by
    # multipathd as "%s: %s - %s" (map, path, message; "%s: %s" with the path before 0.7);
    # main.c fail_path: "checker failed path %s in map %s". The LUN runs on its other paths
    sig(
        "multipath_path_failure",
        r"\b\w+ checker reports path is down\b|\bchecker failed path \S+ in map \S+",
        ("checker",),
        Severity.ERROR,
        _STORAGE,
        "multipathd's path checker found a path to a LUN down and failed it: the LUN runs on "
        "its other paths, or queues and fails its I/O when none is left.",
        "Check the path's transport (the HBA's link, the iSCSI session, the array's ports) and "
        "multipath -ll; paths of LUNs removed on the array stay down until they are deleted "
        "on the host.",
        55,
        idents=("multipathd",),
        formats=(
            Format(
                "%s: %s - tur checker reports path is down",
                "multipath-tools:libmultipath/checkers/tur.c",
                "0.7-0.9",
                program="multipathd",
                args=("mpathaq", "sdak"),
            ),
            Format(
                "%s: rdac checker reports path is down",
                "multipath-tools:libmultipath/checkers/rdac.c",
                "0.4.x-0.6",
                program="multipathd",
                args=("sdh",),
            ),
            Format(
                "checker failed path %s in map %s",
                "multipath-tools:multipathd/main.c",
                "0.4.x-0.9",
                program="multipathd",
                args=("8:16", "36001405fbcc04a11155470eac0f2ff53"),
            ),
        ),
    ),
    # drivers/net/ethernet/intel/ice/ice_main.c: the ice driver without its DDP package runs
    # the NIC in Safe Mode (no RSS, no multiple queues, no advanced features; per Intel's
    # documentation often no usable link). ice_request_fw dev_err "The DDP package file was
    # not found or could not be read. Entering Safe Mode" (5.5-6.18); ice_log_pkg_init "The
    # DDP package file is invalid. Entering Safe Mode.", "The device has a DDP package that
    # is not supported by the driver. … Entering Safe Mode.", "The firmware loaded on the
    # device is not compatible with the DDP package. … Entering safe mode." (5.5-6.18);
    # ice_probe "Package download failed. Advanced features disabled - Device in Safe Mode"
    sig(
        "firmware_load_failure",
        r"\bDDP package\b.*\bEntering [Ss]afe [Mm]ode\b"
        r"|\bPackage download failed\. Advanced features disabled - Device in Safe Mode\b",
        ("DDP", "Package"),
        Severity.ERROR,
        _NET,
        "The ice driver could not load the NIC's DDP package (missing, unreadable or not "
        "matching) and runs the Intel E800-series NIC in Safe Mode with basic features only.",
        "Install the ice DDP package (linux-firmware's intel/ice/ddp/ice.pkg, in the initramfs "
        "too) matching the driver, or update the NIC's NVM when it says so; reload ice.",
        45,
        formats=(
            Format(
                "The DDP package file was not found or could not be read. Entering Safe Mode",
                "drivers/net/ethernet/intel/ice/ice_main.c",
                "5.5-6.18",
                "ice 0000:01:00.0: ",
            ),
            Format(
                "The DDP package file is invalid. Entering Safe Mode.",
                "drivers/net/ethernet/intel/ice/ice_main.c",
                "5.5-6.18",
                "ice 0000:01:00.0: ",
            ),
            Format(
                "The firmware loaded on the device is not compatible with the DDP package.  "
                "Please update the device's NVM.  Entering safe mode.",
                "drivers/net/ethernet/intel/ice/ice_main.c",
                "5.8-6.18",
                "ice 0000:01:00.0: ",
            ),
        ),
    ),
    # drivers/net/ethernet/intel/ice: the NIC's firmware cannot report its PHY capabilities
    # at init. ice_common.c ice_init_hw dev_warn "Get PHY capabilities failed status = %d,
    # continuing anyway" (5.9-6.18; Intel's out-of-tree ice ice_warn the same; before 5.9
    # ice_init_hw failed there, net.py's "ice_init_hw failed"); ice_main.c then reads them
    # again: ice_init_nvm_phy_type / ice_init_phy_user_cfg dev_err "Get PHY capability
    # failed." and ice_probe's dev_err "ice_init_nvm_phy_type failed: %d", "ice_init_phy_user_cfg
    # failed: %d" (5.8-6.18), the probe's end: that function has no netdev. The warning alone
    # is routine (the driver continues; blamed only alone)
    sig(
        "nic_probe_failure",
        r"\bGet PHY capabilities failed status = -?\d+, continuing anyway\b",
        ("capabilities",),
        Severity.WARNING,
        _NET,
        "The ice driver could not read the NIC's PHY capabilities from its firmware at init; "
        "it continues, but the port's next init steps usually fail and it gets no netdev.",
        "Check the NIC's NVM/firmware version (devlink dev info, ethtool -i) and update it; a "
        "device left at a generic device ID by its vendor needs the vendor's NVM.",
        40,
        routine=True,
        formats=(
            Format(
                "Get PHY capabilities failed status = %d, continuing anyway",
                "drivers/net/ethernet/intel/ice/ice_common.c",
                "5.9-6.18",
                "ice 0000:ec:00.0: ",
                args=(-5,),
            ),
        ),
    ),
    sig(
        "nic_probe_failure",
        r"\bice \S+: (?:Get PHY capability failed\.|ice_init_(?:nvm_phy_type|phy_user_cfg) "
        r"failed: -?\d+)",
        ("capability", "ice_init_nvm_phy_type", "ice_init_phy_user_cfg"),
        Severity.ERROR,
        _NET,
        "The ice driver failed to initialise an Intel E800-series NIC function (its PHY "
        "could not be read): that port is missing for this boot.",
        "Check the NIC's NVM/firmware version (devlink dev info, ethtool -i) and update it; a "
        "device left at a generic device ID by its vendor needs the vendor's NVM.",
        40,
        formats=(
            Format(
                "Get PHY capability failed.",
                "drivers/net/ethernet/intel/ice/ice_main.c",
                "5.8-6.18",
                "ice 0000:ca:00.0: ",
            ),
            Format(
                "ice_init_nvm_phy_type failed: %d",
                "drivers/net/ethernet/intel/ice/ice_main.c",
                "5.8-6.18",
                "ice 0000:ca:00.0: ",
                args=(-5,),
            ),
            Format(
                "ice_init_phy_user_cfg failed: %d",
                "drivers/net/ethernet/intel/ice/ice_main.c",
                "5.8-6.18",
                "ice 0000:ca:00.0: ",
                args=(-5,),
            ),
        ),
    ),
    # drivers/net/bonding/bond_main.c bond_miimon_inspect: a member's link went down and the
    # bond waits downdelay before disabling it: pr_info "%s: link status down for
    # %sinterface %s, disabling it in %d ms." (3.x, "active "/"backup " in active-backup
    # mode), netdev_info "link status down for %sinterface %s, disabling it in %d ms"
    # (4.4-5.3), slave_info "link status down for %sinterface, disabling it in %d ms" after
    # "bond0: (slave eth0): " (5.4-6.18, rate-limited from 6.x). The "definitely down" line
    # (net.py) follows unless the link is "up again"; routine, as that entry
    sig(
        "bond_link_down",
        r"\blink status down for (?:active |backup |idle )?interface(?: \S+)?, disabling it "
        r"in \d+ ms\b",
        ("disabling",),
        Severity.WARNING,
        _NET,
        "A bonded network link went down; the bond disables it after its downdelay unless "
        "the link comes back (failover to the other members, if any).",
        "Check that member's NIC, cable and switch port (ethtool, the NIC's own errors before "
        "this line); a bond with no member left is off the network.",
        48,
        routine=True,
        formats=(
            Format(
                "link status down for %sinterface, disabling it in %d ms",
                "drivers/net/bonding/bond_main.c",
                "5.4-6.18",
                "bond0: (slave eno1): ",
                args=("backup ", 200),
            ),
            Format(
                "link status down for %sinterface %s, disabling it in %d ms",
                "drivers/net/bonding/bond_main.c",
                "4.4-5.3",
                "bond0: ",
                args=("", "eno4", 200),
            ),
            Format(
                "%s: link status down for %sinterface %s, disabling it in %d ms.",
                "drivers/net/bonding/bond_main.c",
                '3.x (pr_fmt "bonding: ")',
                "bonding: ",
                args=("bond0", "active ", "eth0", 200),
            ),
        ),
    ),
)
