"""Conformance of the signature catalogue: every entry has a real-looking line it must match
and one it must not; device extraction; Xid meanings; the scanner over records."""

from __future__ import annotations

import pytest

from kmsgd.catalogue.reset import decode_reset
from kmsgd.catalogue.table import (
    BY_TAG,
    CATALOGUE,
    all_tags,
    describe,
    find_signatures,
    match_record,
)
from kmsgd.ring.records import KernelRecord
from kmsgd.types import Outcome
from tests.catalogue.test_batch9_gpu import BATCH9_GPU_EXAMPLES
from tests.catalogue.test_batch9_storage import BATCH9_EXAMPLES
from tests.catalogue.test_batch11 import BATCH11_EXAMPLES
from tests.catalogue.test_batch14 import BATCH14_EXAMPLES
from tests.catalogue.test_batch15 import BATCH15_EXAMPLES
from tests.catalogue.test_batch16 import BATCH16_EXAMPLES
from tests.catalogue.test_batch17 import BATCH17_EXAMPLES
from tests.catalogue.test_batch18 import BATCH18_EXAMPLES
from tests.catalogue.test_batch19 import BATCH19_EXAMPLES
from tests.catalogue.test_batch78_wording import BATCH78_EXAMPLES
from tests.catalogue.test_batch_wording import BATCH_EXAMPLES
from tests.catalogue.test_fix20a import FIX20A_EXAMPLES
from tests.catalogue.test_fix22a import FIX22A_EXAMPLES
from tests.catalogue.test_fix22b import FIX22B_EXAMPLES
from tests.catalogue.test_fix23a import FIX23A_EXAMPLES
from tests.catalogue.test_fix23b import FIX23B_EXAMPLES
from tests.catalogue.test_fix24 import FIX24_EXAMPLES
from tests.catalogue.test_fix25 import FIX25_EXAMPLES
from tests.catalogue.test_fix26a import FIX26A_EXAMPLES
from tests.catalogue.test_fix26b import FIX26B_EXAMPLES
from tests.catalogue.test_fix27b import FIX27B_EXAMPLES
from tests.catalogue.test_gpu_more import MORE_EXAMPLES
from tests.catalogue.test_gpu_other import OTHER_EXAMPLES
from tests.catalogue.test_sweep_amd import SWEEP_AMD_EXAMPLES
from tests.catalogue.test_sweep_core import SWEEP_CORE_EXAMPLES
from tests.catalogue.test_sweep_debug import SWEEP_DEBUG_EXAMPLES
from tests.catalogue.test_sweep_fixleft import FIXLEFT_EXAMPLES
from tests.catalogue.test_sweep_gpu import SWEEP_GPU_EXAMPLES
from tests.catalogue.test_sweep_gpu2 import SWEEP_GPU2_EXAMPLES
from tests.catalogue.test_sweep_io import SWEEP_IO_EXAMPLES
from tests.catalogue.test_sweep_net import SWEEP_NET_EXAMPLES
from tests.catalogue.test_sweep_nvother import SWEEP_NVOTHER_EXAMPLES
from tests.catalogue.test_sweep_platform import SWEEP_PLATFORM_EXAMPLES
from tests.catalogue.test_sweep_storage import SWEEP_STORAGE_EXAMPLES
from tests.catalogue.test_sweep_sys import SWEEP_SYS_EXAMPLES
from tests.catalogue.test_sweep_virt import SWEEP_VIRT_EXAMPLES

U = "user:"  # prefix marking a userspace journal line (facility 3)

# tag → (positives, negatives). Lines as the kernel (or systemd) prints them.
EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "amdgpu_smu_timeout": (
        [
            "amdgpu 0000:03:00.0: amdgpu: SMU: No response msg_reg: 12 resp_reg: 0",
            "amdgpu 0000:03:00.0: amdgpu: SMU: I'm not done with your previous command: "
            "SMN_C2PMSG_66:0x00000006 SMN_C2PMSG_82:0x00000000",
            "amdgpu 0000:03:00.0: amdgpu: Failed to export SMU metrics table!",
        ],
        [
            "amdgpu 0000:03:00.0: amdgpu: SMU is initialized successfully!",
            "amdgpu 0000:03:00.0: amdgpu: SMU driver if version not matched",
        ],
    ),
    "amdgpu_mes_timeout": (
        [
            "amdgpu 0000:03:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE",
            "[drm:amdgpu_mes_unmap_legacy_queue [amdgpu]] *ERROR* failed to unmap legacy queue",
        ],
        [
            "amdgpu 0000:03:00.0: amdgpu: MES: vmid_mask_mmhub 0xffffff00, vmid_mask_gfxhub 0xffffff00"
        ],
    ),
    "amdgpu_vm_fault": (
        [
            "amdgpu 0000:03:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:3 pasid:32770)",
            "amdgpu 0000:03:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00301031",
        ],
        ["amdgpu 0000:03:00.0: amdgpu: VM: num_level: 3, block_size: 9, fragment_size: 9"],
    ),
    "amdgpu_kfd_error": (
        ["amdgpu: Failed to quiesce KFD", "amdgpu: Failed to evict queue 3"],
        [
            "kfd kfd: amdgpu: added device 1002:744c",
            "kfd kfd: amdgpu: Allocated 3969056 bytes on gart",
        ],
    ),
    "amdgpu_ring_timeout": (
        [
            "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout, signaled seq=18842, "
            "emitted seq=18845",
            "amdgpu 0000:03:00.0: [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout",
        ],
        [
            "amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 uses VM inv eng 0 on hub 0",
            "nvme nvme0: I/O 417 QID 7 timeout, aborting",
        ],
    ),
    "amdgpu_gpu_reset": (
        [
            "amdgpu 0000:03:00.0: amdgpu: GPU reset begin!",
            "amdgpu 0000:03:00.0: amdgpu: GPU reset(2) succeeded!",
        ],
        [
            "amdgpu 0000:03:00.0: amdgpu: reset_method: 2 (mode1)",
            "nvme nvme0: resetting controller",
        ],
    ),
    "amdgpu_init_failure": (
        [
            "amdgpu 0000:03:00.0: amdgpu: amdgpu_device_ip_init failed",
            "amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init",
            "[drm:amdgpu_device_init [amdgpu]] *ERROR* hw_init of IP block <psp> failed -22",
        ],
        ["[drm] Initialized amdgpu 3.57.0 20150101 for 0000:03:00.0 on minor 1"],
    ),
    "amdgpu_workqueue_hog": (
        [
            "workqueue: svm_range_deferred_list_work [amdgpu] hogged CPU for >10000us 4 times, "
            "consider switching to WQ_UNBOUND"
        ],
        [
            "workqueue: drm_fb_helper_damage_work hogged CPU for >10000us 4 times, consider "
            "switching to WQ_UNBOUND"
        ],
    ),
    "workqueue_hog": (
        [
            "workqueue: drm_fb_helper_damage_work hogged CPU for >10000us 4 times, consider "
            "switching to WQ_UNBOUND"
        ],
        [
            "workqueue: svm_range_deferred_list_work [amdgpu] hogged CPU for >10000us 4 times, "
            "consider switching to WQ_UNBOUND"
        ],
    ),
    "nvidia_gsp_timeout": (
        [
            "NVRM: _kgspLogXid119: ********************************* GSP Timeout "
            "**********************************",
            "NVRM: Xid (PCI:0000:01:00): 119, pid=2311, name=python3, Timeout after 6s of waiting "
            "for RPC response from GPU0 GSP! Expected function 76 (GSP_RM_CONTROL)",
        ],
        ["NVRM: GPU0 GSP firmware version 550.127.05 loaded"],
    ),
    "gpu_fell_off_bus": (
        ["NVRM: GPU 0000:3d:00.0: GPU has fallen off the bus."],
        [
            "NVRM: Xid (PCI:0000:3d:00): 79, pid=1892, name=python3, GPU has fallen off the bus.",
            "NVRM: GPU at PCI:0000:3d:00: GPU-5a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9",
        ],
    ),
    "nvidia_init_failure": (
        ["NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x26:0xffff:1211)"],
        ["NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.133.07"],
    ),
    "nvidia_xid_79": (
        ["NVRM: Xid (PCI:0000:3d:00): 79, pid=1892, name=python3, GPU has fallen off the bus."],
        ["NVRM: Xid (PCI:0000:3d:00): 13, pid=1892, name=python3, Graphics SM Warp Exception"],
    ),
    "nvidia_xid_13": (
        ["NVRM: Xid (PCI:0000:3d:00): 13, pid=1892, name=python3, Graphics SM Warp Exception"],
        ["NVRM: Xid support enabled"],
    ),
    "sysrq_crash": (
        ["sysrq: Trigger a crash", "Kernel panic - not syncing: sysrq triggered crash"],
        ["sysrq: Show Blocked State"],
    ),
    "hard_lockup": (
        [
            "watchdog: Watchdog detected hard LOCKUP on cpu 5",
            "Kernel panic - not syncing: Hard LOCKUP",
        ],
        ["NMI watchdog: Enabled. Permanently consumes one hw-PMU counter."],
    ),
    "soft_lockup": (
        ["watchdog: BUG: soft lockup - CPU#12 stuck for 26s! [kworker/12:2:48211]"],
        ["watchdog: soft lockup detector enabled"],
    ),
    "rcu_stall": (
        [
            "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
            "rcu: INFO: rcu_sched self-detected stall on CPU",
        ],
        [
            "rcu: Hierarchical SRCU implementation.",
            "rcu: 	RCU CPU stall warnings timeout set to 60",
        ],
    ),
    "hung_task": (
        ["INFO: task kworker/u64:2:1234 blocked for more than 122 seconds."],
        ["      Not tainted 6.8.0-49-generic #49-Ubuntu"],
    ),
    "general_protection_fault": (
        [
            "general protection fault, probably for non-canonical address 0xdead000000000100: "
            "0000 [#1] PREEMPT SMP NOPTI",
            "Oops: general protection fault, probably for non-canonical address 0x6b6b6b6b6b6b6b6b: "
            "0000 [#1] PREEMPT SMP NOPTI",
        ],
        ["traps: python3[2210] general protection fault ip:7f3b2c sp:7ffd error:0 in libc.so.6"],
    ),
    "kernel_bug": (
        [
            "kernel BUG at mm/slub.c:432!",
        ],
        [
            "BUG: scheduling while atomic: swapper/0/0/0x00000002",  # its own tag
            "watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [a:1]",
            "BUG: kernel NULL pointer dereference, address: 0000000000000008",
            # a page fault in the kernel is an oops, not a BUG() assertion
            "BUG: unable to handle page fault for address: ffffb8c0c0a3f000",
        ],
    ),
    "oops": (
        [
            "Oops: 0000 [#1] PREEMPT SMP NOPTI",
            "BUG: kernel NULL pointer dereference, address: 0000000000000008",
        ],
        ["usb 1-1: Oops-free operation restored"],
    ),
    "kernel_warning": (
        [
            "WARNING: CPU: 3 PID: 1234 at drivers/gpu/drm/amd/amdgpu/amdgpu_ring.c:389 "
            "amdgpu_ring_fini+0x1c/0x80 [amdgpu]"
        ],
        ["ACPI Warning: SystemIO range 0x0000000000000B00 conflicts"],
    ),
    "kernel_panic": (
        [
            "Kernel panic - not syncing: Fatal exception",
            "---[ end Kernel panic - not syncing: softlockup: hung tasks ]---",
        ],
        ["Kernel command line: BOOT_IMAGE=/vmlinuz panic=30"],
    ),
    "page_allocation_failure": (
        [
            "gnome-shell: page allocation failure: order:4, mode:0x40dc0(GFP_KERNEL|__GFP_COMP|"
            "__GFP_ZERO), nodemask=(null),cpuset=/,mems_allowed=0"
        ],
        ["Memory: 131786916K/134031928K available (20480K kernel code)"],
    ),
    "oom_kill": (
        [
            "Out of memory: Killed process 2210 (llama-server) total-vm:121634816kB, "
            "anon-rss:1183744kB, file-rss:0kB, shmem-rss:0kB, UID:1000",
            "Memory cgroup out of memory: Killed process 812 (python3) total-vm:1kB",
            # the report's first line: the same event, tagged alone when the kill is cut off
            "llama-server invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE), "
            "order=0, oom_score_adj=0",
            # nothing left to kill: the memory ran out and the kernel panics on it
            "Kernel panic - not syncing: Out of memory and no killable processes...",
        ],
        [
            "oom_reaper: reaped process 2210 (llama-server), now anon-rss:0kB, file-rss:0kB, "
            "shmem-rss:0kB",
        ],
    ),
    "oomd_kill": (
        [
            U + "systemd-oomd[788]: Killed /user.slice/user-1000.slice/user@1000.service/app.slice/"
            "lmstudio.service due to memory pressure for /user.slice being 91.37% > 50.00% for > "
            "20s with reclaim activity"
        ],
        [
            U + "systemd-oomd[788]: Considered 3 cgroups for killing, top candidates were:",
            U + "bash[911]: Killed /tmp/x due to memory pressure",
        ],
    ),
    "mce": (
        [
            "mce: [Hardware Error]: CPU 0: Machine Check: 0 Bank 5: bea0000000000108",
            "mce: [Hardware Error]: Machine check events logged",
        ],
        ["mce: CPU0: Thermal monitoring enabled (TM1)", "MCE: In-kernel MCE decoding enabled."],
    ),
    "mce_logged_at_boot": (
        ["@1.2 mce: [Hardware Error]: Machine check events logged"],
        [
            "@9000.0 mce: [Hardware Error]: Machine check events logged",
            "mce: [Hardware Error]: Machine check events logged",
        ],
    ),
    "edac": (
        [
            "EDAC MC0: 1 CE memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0 (channel:1 "
            "slot:0 page:0x1b2c3 offset:0x0 grain:32 syndrome:0x0)",
            "EDAC MC1: 1 UE memory read error on CPU_SrcID#1_Ha#0_Chan#0_DIMM#0",
        ],
        [
            "EDAC MC0: Giving out device to module sb_edac controller Haswell SrcID#0_Ha#0: "
            "DEV 0000:7f:12.0 (INTERRUPT)"
        ],
    ),
    "aer_fatal": (
        [
            "pcieport 0000:3a:00.0: AER: Uncorrectable (Fatal) error message received "
            "from 0000:3d:00.0",
            "nvidia 0000:3d:00.0: PCIe Bus Error: severity=Uncorrectable (Fatal), "
            "type=Transaction Layer, (Receiver ID)",
        ],
        [
            "pcieport 0000:3a:00.0: AER: enabled with IRQ 28",
            "nvidia 0000:3d:00.0: PCIe Bus Error: severity=Uncorrectable (Non-Fatal), "
            "type=Transaction Layer, (Requester ID)",
        ],
    ),
    "aer_nonfatal": (
        [
            "nvidia 0000:3d:00.0: PCIe Bus Error: severity=Uncorrectable (Non-Fatal), "
            "type=Transaction Layer, (Requester ID)"
        ],
        [
            "nvidia 0000:3d:00.0: PCIe Bus Error: severity=Uncorrectable (Fatal), "
            "type=Transaction Layer, (Receiver ID)"
        ],
    ),
    "aer_corrected": (
        [
            "pcieport 0000:00:1c.5: AER: Corrected error message received from 0000:03:00.0",
            "nvidia 0000:3d:00.0: PCIe Bus Error: severity=Corrected, type=Physical "
            "Layer, (Receiver ID)",
        ],
        ["pcieport 0000:00:1c.5: AER: enabled with IRQ 122"],
    ),
    "pcie_link_down": (
        [
            "pcieport 0000:00:01.1: pciehp: Slot(1): Link Down",
            "pcieport 0000:00:03.1: DPC: containment event, status:0x1f01 source:0x0000",
        ],
        [
            "r8169 0000:0b:00.0 enp11s0: Link is Down",
            "igb 0000:05:00.0 eno1: igb: eno1 NIC Link is Down",
        ],
    ),
    "iommu_fault": (
        [
            "AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000d address=0xfd5a0000 flags=0x0020]",
            "DMAR: [DMA Read NO_PASID] Request device [03:00.0] fault addr 0xffd000 "
            "[fault reason 0x06] PTE Read access is not set",
        ],
        ["DMAR: IOMMU enabled", "AMD-Vi: Interrupt remapping enabled"],
    ),
    "thermal_throttle": (
        ["mce: CPU4: Core temperature above threshold, cpu clock throttled (total events = 1)"],
        ["mce: CPU4: Core temperature/speed normal (total events = 1)"],
    ),
    "under_voltage": (
        [
            "Under-voltage detected! (0x00050005)",
            "hwmon hwmon1: Undervoltage detected!",
        ],
        ["Voltage normalised (0x00000000)", "hwmon hwmon1: Voltage normalised"],
    ),
    "thermal_critical": (
        [
            "thermal thermal_zone0: critical temperature reached (105 C), shutting down",
            "amdgpu 0000:0a:00.0: amdgpu: ERROR: GPU over temperature range(SW CTF) detected!",
        ],
        [
            "thermal LNXTHERM:00: registered as thermal_zone0",
            "ACPI: thermal: Critical trip point at 105 C",
        ],
    ),
    "nvme_timeout": (
        [
            "nvme nvme0: I/O 417 QID 7 timeout, aborting",
            "nvme nvme0: controller is down; will reset: CSTS=0xffffffff, PCI_STATUS=0xffff",
        ],
        ["nvme nvme0: 16/0/0 default/read/poll queues"],
    ),
    "nvme_reset": (
        [
            "nvme nvme0: resetting controller",
        ],
        [
            "nvme nvme0: pci function 0000:01:00.0",
            # nvme_probe_failure: after a reset the culprit order makes it the reset's end
            "nvme nvme0: Removing after probe failure status: -19",
        ],
    ),
    "disk_io_error": (
        [
            "I/O error, dev nvme0n1, sector 1234 op 0x1:(WRITE) flags 0x800 phys_seg 1 "
            "prio class 2",
            "Buffer I/O error on dev sda1, logical block 0, async page read",
            "ata1.00: failed command: READ FPDMA QUEUED",
        ],
        ["sd 0:0:0:0: [sda] 3907029168 512-byte logical blocks: (2.00 TB/1.82 TiB)"],
    ),
    "fs_error": (
        [
            "EXT4-fs error (device nvme0n1p2): ext4_find_entry:1455: inode #2: comm "
            "systemd: reading directory lblock 0",
            "XFS (sda1): Corruption detected. Unmount and run xfs_repair",
            "BTRFS error (device sda1): bdev /dev/sda1 errs: wr 0, rd 3, flush 0",
        ],
        [
            "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode.",
            "XFS (sda1): Mounting V5 Filesystem",
        ],
    ),
    "clean_shutdown_marker": (
        [
            "reboot: Power down",
            "reboot: Restarting system",
            U + "systemd-shutdown[1]: Syncing filesystems and block devices.",
            U + "systemd[1]: Reached target poweroff.target - System Power Off.",
            U + "systemd-journald[498]: Journal stopped",
        ],
        [
            U + "sudo[9120]:    alice : TTY=pts/1 ; PWD=/home/alice ; USER=root ; COMMAND=/usr/bin/"
            "journalctl -b -1 --grep 'systemd-shutdown|Journal stopped'",
            U
            + "systemd[1]: Started run-u512.service - /usr/bin/journalctl --grep Journal stopped.",
            "reboot: Reached target Power-Off",
        ],
    ),
    "reset_reason": (
        ["x86/amd: Previous system reset reason [0x02000000]: hardware watchdog timer expired"],
        ["x86/amd: Previous system reset reason unknown"],
    ),
    "journal_unclean": (
        [
            U + "systemd-journald[612]: File /var/log/journal/5e0f/user-1000.journal corrupted or "
            "uncleanly shut down, renaming and replacing."
        ],
        [
            U + "grep[1]: File x corrupted or uncleanly shut down, renaming and replacing.",
            U + "systemd-journald[612]: Journal started",
        ],
    ),
    "fs_recovery": (
        [
            "EXT4-fs (nvme0n1p2): recovery complete",
            "XFS (sda1): Starting recovery (logdev: internal)",
            U + "systemd-fsck[301]: /dev/sda1: recovering journal",
        ],
        [
            "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode.",
            "PM: Image not found (code -22)",
        ],
    ),
}


def _record(line: str) -> KernelRecord:
    ts = None
    if line.startswith("@"):  # "@<seconds> text": a printk stamp for at-boot signatures
        stamp, line = line[1:].split(" ", 1)
        ts = int(float(stamp) * 1e6)
    if line.startswith(U):
        return KernelRecord(line[len(U) :], facility=3, ts_usec=ts)
    return KernelRecord(line, facility=0, ts_usec=ts)


def _tags(line: str) -> set[str]:
    return {h.tag for h in match_record(_record(line))}


def test_every_catalogue_tag_has_examples() -> None:
    tags = set(BY_TAG) - {"nvidia_xid"}
    missing = tags - set(EXAMPLES) - set(OTHER_EXAMPLES) - set(BATCH_EXAMPLES) - set(MORE_EXAMPLES)
    missing -= set(BATCH78_EXAMPLES) | set(BATCH9_GPU_EXAMPLES) | set(BATCH9_EXAMPLES)
    missing -= set(BATCH11_EXAMPLES) | set(BATCH14_EXAMPLES) | set(BATCH15_EXAMPLES)
    missing -= set(FIXLEFT_EXAMPLES)
    missing -= set(FIX27B_EXAMPLES)
    missing -= set(BATCH17_EXAMPLES)
    missing -= set(SWEEP_GPU_EXAMPLES)
    missing -= set(SWEEP_STORAGE_EXAMPLES)
    missing -= set(SWEEP_GPU2_EXAMPLES)
    missing -= set(SWEEP_DEBUG_EXAMPLES)
    missing -= set(SWEEP_PLATFORM_EXAMPLES)
    missing -= set(SWEEP_VIRT_EXAMPLES)
    missing -= set(SWEEP_NVOTHER_EXAMPLES)
    missing -= set(SWEEP_IO_EXAMPLES)
    missing -= set(SWEEP_SYS_EXAMPLES)
    missing -= set(SWEEP_CORE_EXAMPLES)
    missing -= set(SWEEP_AMD_EXAMPLES)
    missing -= set(SWEEP_NET_EXAMPLES)
    missing -= set(BATCH16_EXAMPLES)
    missing -= set(BATCH18_EXAMPLES)
    missing -= set(BATCH19_EXAMPLES)
    missing -= set(FIX20A_EXAMPLES)
    missing -= set(FIX22B_EXAMPLES)
    missing -= set(FIX22A_EXAMPLES)
    missing -= set(FIX23A_EXAMPLES)
    missing -= set(FIX23B_EXAMPLES)
    missing -= set(FIX25_EXAMPLES)
    missing -= set(FIX24_EXAMPLES)
    missing -= set(FIX26B_EXAMPLES)
    missing -= set(FIX26A_EXAMPLES)
    assert not missing, f"catalogue entries without conformance lines: {sorted(missing)}"


@pytest.mark.parametrize("tag", sorted(EXAMPLES))
def test_positive_lines_match(tag: str) -> None:
    positives, _ = EXAMPLES[tag]
    assert positives
    for line in positives:
        assert tag in _tags(line), line


@pytest.mark.parametrize("tag", sorted(EXAMPLES))
def test_negative_lines_do_not_match(tag: str) -> None:
    _, negatives = EXAMPLES[tag]
    assert negatives
    for line in negatives:
        assert tag not in _tags(line), line


@pytest.mark.parametrize("sig", CATALOGUE, ids=lambda s: s.tag)
def test_entries_say_what_it_means_and_what_to_do(sig: object) -> None:
    from kmsgd.catalogue.base import Signature

    assert isinstance(sig, Signature)
    assert sig.tag == sig.tag.lower() and " " not in sig.tag
    assert sig.meaning.endswith(".") and len(sig.meaning) > 20
    assert len(sig.next_step) > 10
    assert sig.keywords


def test_tags_are_the_design_vocabulary() -> None:
    design = {
        "amdgpu_smu_timeout",
        "amdgpu_mes_timeout",
        "amdgpu_kfd_error",
        "amdgpu_ring_timeout",
        "amdgpu_gpu_reset",
        "amdgpu_vm_fault",
        "amdgpu_init_failure",
        "amdgpu_workqueue_hog",
        "gpu_fell_off_bus",
        "nvidia_gsp_timeout",
        "soft_lockup",
        "hard_lockup",
        "rcu_stall",
        "hung_task",
        "kernel_panic",
        "oops",
        "kernel_bug",
        "general_protection_fault",
        "kernel_warning",
        "sysrq_crash",
        "oom_kill",
        "oomd_kill",
        "page_allocation_failure",
        "mce",
        "edac",
        "aer_fatal",
        "aer_nonfatal",
        "aer_corrected",
        "pcie_link_down",
        "iommu_fault",
        "thermal_throttle",
        "thermal_critical",
        "nvme_timeout",
        "nvme_reset",
        "disk_io_error",
        "fs_error",
        "clean_shutdown_marker",
        "reset_reason",
        "journal_unclean",
        "fs_recovery",
        "mce_logged_at_boot",
    }
    assert design <= set(all_tags())
    assert "nvidia_xid_79" in all_tags()


@pytest.mark.parametrize(
    ("line", "tag", "device"),
    [
        (
            "amdgpu 0000:05:00.0: amdgpu: SMU: No response msg_reg: 12 resp_reg: 0",
            "amdgpu_smu_timeout",
            "0000:05:00.0",
        ),
        (
            "NVRM: Xid (PCI:0000:3d:00): 79, pid=1892, name=python3, GPU has fallen off the bus.",
            "nvidia_xid_79",
            "0000:3d:00.0",
        ),
        (
            "pcieport 0000:3a:00.0: AER: Uncorrectable (Fatal) error message received from "
            "0000:3d:00.0",
            "aer_fatal",
            "0000:3d:00.0",
        ),
        (
            "watchdog: BUG: soft lockup - CPU#12 stuck for 26s! [kworker/12:2:48211]",
            "soft_lockup",
            "cpu12",
        ),
        (
            "I/O error, dev nvme0n1, sector 1234 op 0x1:(WRITE) flags 0x800",
            "disk_io_error",
            "nvme0n1",
        ),
        (
            "EXT4-fs error (device nvme0n1p2): ext4_find_entry:1455: inode #2",
            "fs_error",
            "nvme0n1p2",
        ),
    ],
)
def test_device_extraction(line: str, tag: str, device: str) -> None:
    hits = [h for h in match_record(KernelRecord(line)) if h.tag == tag]
    assert hits and hits[0].device == device


def test_xid_79_carries_nvidia_meaning() -> None:
    meaning, step, severity, _ = describe("nvidia_xid_79")
    assert "fallen off the bus" in meaning
    assert "power" in step and "not a driver bug" in step
    assert severity == "critical"
    assert "not in kmsgd's table" in describe("nvidia_xid_999")[0]


def test_find_signatures_keeps_order_and_index() -> None:
    records = [
        KernelRecord("usb 1-1: new high-speed USB device number 2 using xhci_hcd"),
        KernelRecord("amdgpu 0000:05:00.0: amdgpu: SMU: No response msg_reg: 12 resp_reg: 0"),
        KernelRecord("Kernel panic - not syncing: Fatal exception"),
    ]
    hits = find_signatures(records)
    # die()'s panic is also the oops it ends (kmsgd/catalogue/indirect.py)
    assert [(h.tag, h.index) for h in hits] == [
        ("amdgpu_smu_timeout", 1),
        ("kernel_panic", 2),
        ("oops", 2),
    ]
    assert hits[0].record is records[1]


def test_reset_reason_decoded_by_bit_not_wording() -> None:
    assert decode_reset(1 << 25)[0][1:] == (
        "watchdog",
        "hardware watchdog timer expired",
        Outcome.WATCHDOG_RESET,
    )
    assert decode_reset(1 << 27)[0][1] == "sync_flood"
    assert decode_reset(1 << 9)[0][3] is Outcome.THERMAL_SHUTDOWN
    assert {b[1] for b in decode_reset(1 << 18 | 1 << 21)} == {"cf9_reboot", "acpi_transition"}
    assert decode_reset(0xFFFFFFFF) == []  # all ones: no data
    assert decode_reset(1 << 28)[0][1] == "bit28"


def test_programs_writing_to_kmsg_are_read_as_themselves_in_dmesg() -> None:
    """dmesg text has no facility: systemd-shutdown's "ident[pid]: text" is its own line."""
    from kmsgd.catalogue.table import match_text

    line = "systemd-shutdown[1]: Syncing filesystems and block devices."
    assert [t for t, _, _ in match_text(line, None, 39_000_000)] == ["clean_shutdown_marker"]
    assert match_text(line, 0, 39_000_000) == []  # said to be the kernel's: it is not that
    dog = "systemd-shutdown[1]: Using hardware watchdog 'iTCO_wdt', version 0, device /dev/watchdog"
    assert [t for t, _, _ in match_text(dog, None, None)] == ["clean_shutdown_marker"]
    boot = "systemd[1]: Using hardware watchdog 'iTCO_wdt', version 0, device /dev/watchdog"
    assert match_text(boot, None, None) == []  # PID 1 at boot (RuntimeWatchdogSec=)
