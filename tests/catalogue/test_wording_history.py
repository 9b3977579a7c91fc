"""Every catalogue entry against the wording of older kernels and other driver generations:
a hang is named the same whatever kernel printed it. Each line is quoted from the
kernel era named beside it; the entry's comment in kmsgd/catalogue/ names the source file."""

from __future__ import annotations

import pytest

from kmsgd.catalogue.table import match_record
from kmsgd.ring.records import KernelRecord

# (tag, era, line as that kernel printed it)
HISTORY: list[tuple[str, str, str]] = [
    ("sysrq_crash", "3.x", "SysRq : Trigger a crash"),
    ("sysrq_crash", "4.x-5.8", "sysrq: SysRq : Trigger a crash"),
    ("sysrq_crash", "5.9+", "sysrq: Trigger a crash"),
    ("sysrq_crash", "4.x+ panic", "Kernel panic - not syncing: sysrq triggered crash"),
    ("hard_lockup", "2.6", "NMI Watchdog detected LOCKUP on CPU 2"),
    ("hard_lockup", "4.x", "NMI watchdog: Watchdog detected hard LOCKUP on cpu 3"),
    ("hard_lockup", "5.x+", "watchdog: Watchdog detected hard LOCKUP on cpu 3"),
    ("soft_lockup", "3.x", "BUG: soft lockup - CPU#1 stuck for 22s! [kworker/1:2:345]"),
    ("soft_lockup", "5.x+", "watchdog: BUG: soft lockup - CPU#7 stuck for 26s! [python3:4242]"),
    ("soft_lockup", "panic", "Kernel panic - not syncing: softlockup: hung tasks"),
    ("rcu_stall", "3.x", "INFO: rcu_sched_state detected stall on CPU 6 (t=15000 jiffies)"),
    ("rcu_stall", "3.x-4.x", "INFO: rcu_sched detected stalls on CPUs/tasks:"),
    ("rcu_stall", "4.x", "INFO: rcu_preempt self-detected stall on CPU"),
    ("rcu_stall", "5.x+", "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:"),
    ("rcu_stall", "5.x+", "rcu: INFO: rcu_sched self-detected stall on CPU"),
    ("rcu_stall", "expedited", "INFO: rcu_sched detected expedited stalls on CPUs/tasks: {"),
    ("rcu_stall", "4.x+", "rcu: rcu_sched kthread starved for 10502 jiffies! g8861 f0x0"),
    ("hung_task", "2.6-today", "INFO: task jbd2/sda1-8:245 blocked for more than 120 seconds."),
    (
        "hung_task",
        "comm with space",
        "INFO: task CPU 7/KVM:4711 blocked for more than 122 seconds.",
    ),
    ("general_protection_fault", "2.6-5.4", "general protection fault: 0000 [#1] SMP PTI"),
    (
        "general_protection_fault",
        "5.5+",
        "general protection fault, probably for non-canonical address 0xdead000000000100: "
        "0000 [#1] PREEMPT SMP NOPTI",
    ),
    ("kernel_bug", "all", "kernel BUG at fs/ext4/inode.c:2718!"),
    ("scheduling_while_atomic", "all", "BUG: scheduling while atomic: swapper/0/0/0x00010000"),
    (
        "oops",
        "2.6-4.x",
        "BUG: unable to handle kernel NULL pointer dereference at 0000000000000008",
    ),
    ("oops", "2.6-4.x", "BUG: unable to handle kernel paging request at ffffc90000a3c000"),
    ("oops", "4.20+", "BUG: kernel NULL pointer dereference, address: 0000000000000008"),
    ("oops", "4.20+", "BUG: unable to handle page fault for address: ffffeb04c0000008"),
    ("oops", "x86", "Oops: 0002 [#1] SMP NOPTI"),
    ("oops", "arm64", "Internal error: Oops: 0000000096000005 [#1] PREEMPT SMP"),
    (
        "oops",
        "arm/arm64",
        "Unable to handle kernel NULL pointer dereference at virtual address 0000000000000000",
    ),
    ("oops", "powerpc", "Unable to handle kernel paging request for data at address 0x00000000"),
    ("oops", "powerpc", "Oops: Kernel access of bad area, sig: 11 [#1]"),
    (
        "kernel_warning",
        "4.x+",
        "WARNING: CPU: 3 PID: 1234 at drivers/gpu/drm/amd/amdgpu/amdgpu_job.c:121 "
        "amdgpu_job_timedout+0x1c5/0x1e0 [amdgpu]",
    ),
    (
        "kernel_warning",
        "2.6-3.x",
        "WARNING: at fs/ext4/inode.c:2270 ext4_da_writepages+0x2d1/0x3e0()",
    ),
    ("kernel_panic", "all", "Kernel panic - not syncing: Fatal exception in interrupt"),
    ("oom_kill", "3.x-4.x", "Out of memory: Kill process 2573 (java) score 904 or sacrifice child"),
    ("oom_kill", "3.x-4.x", "Killed process 2573 (java) total-vm:8390532kB, anon-rss:3616836kB"),
    (
        "oom_kill",
        "5.x+",
        "Killed process 799153 (node), UID 1000, total-vm:606096kB, anon-rss:68308kB",
    ),
    ("oom_kill", "3.x-4.18", "Memory cgroup out of memory: Kill process 4242 (python) score 999"),
    ("oom_kill", "4.19+", "Out of memory: Killed process 4242 (python3) total-vm:1kB"),
    ("mce", "3.x", "[Hardware Error]: CPU 0: Machine Check Exception: 5 Bank 4: b200000000070f0f"),
    ("mce", "4.x+", "mce: [Hardware Error]: CPU 3: Machine Check: 0 Bank 7: cc00008000010090"),
    ("mce", "AMD decoder", "[Hardware Error]: Corrected error, no action required."),
    (
        "edac",
        "2.6-3.4",
        "EDAC MC0: CE page 0x1234, offset 0x0, grain 8, syndrome 0x5c, row 1, channel 0, "
        'label "": i5000 CE',
    ),
    ("edac", "3.5+", "EDAC MC0: 1 CE memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0"),
    ("edac", "sb_edac", "EDAC sbridge MC0: HANDLING MCE MEMORY ERROR"),
    (
        "aer_corrected",
        "3.x-4.x",
        "pcieport 0000:00:1c.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, "
        "id=00e0(Receiver ID)",
    ),
    ("aer_corrected", "3.x-4.x", "pcieport 0000:00:1c.0: AER: Corrected error received: id=00e0"),
    ("aer_corrected", "5.x+", "pcieport 0000:00:1c.5: AER: Corrected error received: 0000:00:1c.5"),
    (
        "aer_fatal",
        "all",
        "pcieport 0000:00:01.1: AER: Uncorrected (Fatal) error received: 0000:01:00.0",
    ),
    ("nvme_timeout", "4.x+", "nvme nvme0: I/O 123 QID 4 timeout, aborting"),
    (
        "nvme_timeout",
        "6.x",
        "nvme nvme0: I/O tag 5 (0005) opcode 0x2 (Read) QID 3 timeout, aborting",
    ),
    ("nvme_timeout", "fabrics", "nvme nvme4: queue 0: timeout request 0x0 type 4"),
    ("nvme_reset", "4.x+", "nvme nvme0: controller is down; will reset: CSTS=0xffffffff"),
    ("nvme_reset", "fabrics", "nvme nvme4: starting error recovery"),
    ("fs_error", "ext2/3 (<4.3)", "EXT2-fs error (device sda1): ext2_lookup: deleted inode"),
    ("fs_error", "ext4", "EXT4-fs (dm-2): error loading journal"),
    (
        "fs_error",
        "xfs 3.10+",
        "XFS (vda4): Metadata CRC error detected at xfs_dquot_buf_verify_crc",
    ),
    (
        "amdgpu_smu_timeout",
        "5.15+",
        "amdgpu 0000:03:00.0: amdgpu: SMU is in hanged state, failed to send smu message!",
    ),
    (
        "amdgpu_smu_timeout",
        "4.x powerplay",
        "amdgpu: [powerplay] failed to send message 261 ret is 0",
    ),
    (
        "amdgpu_mes_timeout",
        "6.1-6.5",
        "[drm ERROR :mes_v11_0_submit_pkt_and_poll_completion] MES failed to response msg=3",
    ),
    (
        "amdgpu_vm_fault",
        "4.14-4.19",
        "amdgpu 0000:09:00.0: [gfxhub] VMC page fault (src_id:0 ring:24 vmid:1 pasid:32769)",
    ),
    ("amdgpu_vm_fault", "gmc_v8", "amdgpu 0000:01:00.0: GPU fault detected: 146 0x0e00c80c"),
    (
        "amdgpu_vm_fault",
        "FreeBSD drm-kmod",
        "drmn0: [mmhub] VMC page fault (src_id:0 ring:153 vm_id:0 pas_id:0)",
    ),
    (
        "amdgpu_ring_timeout",
        "4.x-5.x",
        "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx timeout, signaled seq=1, emitted seq=3",
    ),
    (
        "amdgpu_ring_timeout",
        "FreeBSD",
        "[drm ERROR :amdgpu_job_timedout] ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3",
    ),
    ("amdgpu_gpu_reset", "FreeBSD", "drmn0: GPU reset begin!"),
    (
        "amdgpu_gpu_reset",
        "4.x-5.x",
        "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* GPU Recovery Failed: -110",
    ),
    ("amdgpu_init_failure", "smu11", "amdgpu 0000:03:00.0: Failed to setup smc hw!"),
    ("amdgpu_init_failure", "FreeBSD", "drmn0: Fatal error during GPU init"),
    (
        "nvidia_xid_16",
        "304 driver (2013)",
        "NVRM: Xid (0000:01:00): 16, Head 00000000 Count 00000000",
    ),
    (
        "nvidia_xid_79",
        "current",
        "NVRM: Xid (PCI:0000:01:00): 79, pid=1054, name=nv_queue, GPU has fallen off the bus.",
    ),
    ("nvidia_gsp_timeout", "525+", "NVRM: _kgspLogXid119: ********* GSP Timeout *********"),
    (
        "nvidia_gsp_timeout",
        "550+ libos",
        "GSP task watchdog timeout @ pc:0x1250c5c, partition:2#0, task:3",
    ),
    ("gpu_fell_off_bus", "amdgpu 6.x", "amdgpu 0000:07:00.0: amdgpu: device lost from bus!"),
    ("nvidia_init_failure", "all", "NVRM: rm_init_adapter failed, device minor number 0"),
    ("nvidia_init_failure", "probe", "NVRM: The NVIDIA probe routine failed for 1 device(s)."),
]

# lines that share words with an entry but are not its evidence
NOT: list[tuple[str, str]] = [
    ("oops", "BUG: soft lockup - CPU#1 stuck for 22s! [kworker/1:2:345]"),
    ("kernel_bug", "BUG: unable to handle page fault for address: ffffeb04c0000008"),
    ("kernel_bug", "BUG: kernel NULL pointer dereference, address: 0000000000000008"),
    ("general_protection_fault", "traps: python3[4242] general protection fault ip:7f sp:7ff"),
    ("oom_kill", "Killed process 4242 (python3) after 3 tries"),
    ("sysrq_crash", "sysrq: Show Blocked State"),
    ("rcu_stall", "rcu: Hierarchical RCU implementation."),
    ("nvidia_init_failure", "nvidia: probe of 0000:01:00.0 failed with error -1 (vfio)"),
]


def _tags(line: str) -> set[str]:
    return {h.tag for h in match_record(KernelRecord(line, 3, 0, 1, 60_000_000_000, "-"))}


@pytest.mark.parametrize(("tag", "era", "line"), HISTORY, ids=[f"{t}-{e}" for t, e, _ in HISTORY])
def test_each_era_wording_is_named_the_same(tag: str, era: str, line: str) -> None:
    assert tag in _tags(line)


@pytest.mark.parametrize(("tag", "line"), NOT, ids=[t for t, _ in NOT])
def test_neighbouring_wording_is_not_taken(tag: str, line: str) -> None:
    assert tag not in _tags(line)


def test_oomd_kill_with_its_reason_cut_off() -> None:
    rec = KernelRecord(
        "systemd-oomd[93234]: Killed /user.slice/user-1000.slice/app.slice/tmux", 6, 3, 1, None, "-"
    )
    assert {h.tag for h in match_record(rec)} == {"oomd_kill"}
