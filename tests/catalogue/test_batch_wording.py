"""Wording the corpus batches of docs/accuracy.md ("Batches, first contact") showed missing,
each line rendered from the source's format string (file named in the catalogue entry) with
representative arguments, beside the routine lines that must not match. Trigger tags are
also held to the recorder's copy (kmsgd/record/triggers.py): a line that starts an incident
in the catalogue starts one in the recorder."""

from __future__ import annotations

import re

import pytest

from kmsgd.catalogue.table import match_record
from kmsgd.judge.timeline import Timeline
from kmsgd.record import triggers
from kmsgd.ring.records import KernelRecord
from tests.catalogue.lines import check_wording, primary_of

U = "user:"  # a userspace journal line (facility 3): "ident[pid]: text"

# tag → (positives, negatives)
BATCH_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "oom_kill": (
        [
            # dump_header by era: 4.19+, 4.8-4.18 (nodemask), 3.x-4.7 (bare mask), 2.6.3x
            "python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), "
            "order=0, oom_score_adj=0",
            "kworker/u8:2 invoked oom-killer: gfp_mask=0x15080c0(GFP_KERNEL_ACCOUNT|__GFP_ZERO), "
            "nodemask=(null),  order=1, oom_score_adj=0",
            "CPU 0/KVM invoked oom-killer: gfp_mask=0x201da, order=0, oom_score_adj=0",
            "apt-check invoked oom-killer: gfp_mask=0x201da, order=0, oom_adj=0",
            "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,"
            "oom_memcg=/kubepods/pod1,task_memcg=/kubepods/pod1/c1,task=java,pid=4242,uid=0",
            "Task in /kubepods.slice/docker-b272.scope killed as a result of limit of "
            "/kubepods.slice/docker-b272.scope",
            "Kernel panic - not syncing: Out of memory and no killable processes...",
            "Kernel panic - not syncing: Out of memory: system-wide panic_on_oom is enabled",
            " oom_kill_process+0x243/0x270",  # the report's own stack (dump_header)
            " [<ffffffff81184c7e>] oom_kill_process+0x24e/0x3c0",
        ],
        [
            "oom_reaper: reaped process 4242 (java), now anon-rss:0kB, file-rss:0kB",
            "[ pid ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name",
            " ? oom_kill_process+0x24e/0x3c0",  # the unwinder's guess
            "memory: usage 1048576kB, limit 1048576kB, failcnt 189",
            U + "bash[12]: python3 invoked oom-killer: gfp_mask=0x201da, order=0",
        ],
    ),
    "oomd_kill": (
        [
            U + "systemd-oomd[659]: Marked /system.slice/systemd-journald.service for killing "
            "due to memory pressure for /system.slice being 85.03% > 80.00% for > 2s with "
            "reclaim activity",
            U + "systemd-oomd[659]: Marked /user.slice/user-1000.slice/app.scope for killing due "
            "to memory used (30.1G) / total (31.2G) and swap used (7.9G) / total (8.0G) being "
            "more than 90.00%",
            U + "systemd[1]: systemd-journald.service: systemd-oomd killed 1 process(es) in this "
            "unit.",
            U + "systemd[1565]: vte-spawn-f651.scope: systemd-oomd killed 3 process(es) in this "
            "unit.",
        ],
        [
            U + "systemd-oomd[659]: Considered 19 cgroups for killing, top candidates were:",
            U + "systemd-oomd[659]: Memory pressure for /system.slice is 85.03% > 80.00% for > "
            "2s with reclaim activity",
            U + "bash[9]: x.service: systemd-oomd killed 1 process(es) in this unit.",
            "Marked /system.slice/x.service for killing due to memory pressure",  # kernel line
        ],
    ),
    "netdev_tx_timeout": (
        [
            "NETDEV WATCHDOG: eth0 (bcmgenet): transmit queue 3 timed out",  # 2.6.3x-5.x
            "NETDEV WATCHDOG: enp3s0 (r8169): transmit queue 0 timed out 5120 ms",  # 6.x WARN
            "r8125 0000:22:04.0 eth4: NETDEV WATCHDOG: CPU: 3: transmit queue 0 timed out "
            "5010 ms",  # 6.x netdev_crit
            "mtk_soc_eth 1e100000.ethernet eth0: NETDEV WATCHDOG: CPU: 1: transmit queue 3 "
            "timed out 3685740 ms",
        ],
        [
            "r8169 0000:03:00.0 enp3s0: Link is Down",
            "e1000e 0000:00:19.0 eno1: Reset adapter unexpectedly",
            "watchdog: watchdog0: watchdog did not stop!",
        ],
    ),
    "unknown_nmi": (
        [
            "Uhhuh. NMI received for unknown reason 2d on CPU 42.",
            "Uhhuh. NMI received for unknown reason 1c on CPU 9.",
            "Do you have a strange power saving mode enabled?",
            "Dazed and confused, but trying to continue",
        ],
        [
            "NMI watchdog: Enabled. Permanently consumes one hw-PMU counter.",
            "NMI backtrace for cpu 3",
            "INFO: NMI handler (perf_event_nmi_handler) took too long to run: 1.234 msecs",
        ],
    ),
    "nvidia_gsp_timeout": (
        [
            " _kgspRpcRecvPoll+0x650/0x820 [nvidia]",
            " [<ffffffffc1a2b3c4>] _kgspRpcRecvPoll+0x650/0x820 [nvidia]",
        ],
        [
            " ? _kgspRpcRecvPoll+0x650/0x820 [nvidia]",
            " _issueRpcAndWait+0xdd/0x970 [nvidia]",  # every RPC passes there
        ],
    ),
    "fs_error": (
        [
            "EXT4-fs (vdb): error count since last fsck: 26",
            "EXT4-fs (dm-3): initial error at time 1718869019: ext4_orphan_get:1420",
            "EXT4-fs (vdb): last error at time 1529054176: ext4_find_entry:1312: inode 27787279",
            "EXT4-fs warning (device vdb): __ext4_read_dirblock:902: error reading directory "
            "block (ino 27787265, block 0)",
            "EXT4-fs warning (device md6): __ext4_read_dirblock:901: error -5 reading directory "
            "block (ino 202900002, block 0)",
            "EXT4-fs warning (device nbd0): htree_dirblock_to_tree:979: inode #2: lblock 0: "
            "comm ls: error -5 reading directory block",
            "JBD2: Invalid checksum recovering block 4194315 in log",
            "JBD2: Invalid checksum recovering data block 8705 in log",
            "JBD2: Invalid checksum recovering data block 109704 in journal block 3072",
            "JBD2: IO error -5 recovering block 1024 in log",
            "JBD2: recovery failed",
            "XFS: Internal error XFS_WANT_CORRUPTED_RETURN at line 342 of file "
            "fs/xfs/xfs_alloc.c.  Caller 0xffffffffa01e76c2",
            "XFS (dm-2): Internal error XFS_WANT_CORRUPTED_RETURN at line 351 of file "
            "fs/xfs/libxfs/xfs_alloc.c.  Caller xfs_alloc_ag_vextent_near+0x78f/0xba0 [xfs]",
            "XFS (dm-2): xfs_do_force_shutdown(0x8) called from line 370 of file "
            "fs/xfs/xfs_trans.c. Return address = 00000000d2b250f5",
            "XFS (sda1): xfs_do_force_shutdown(0x2) called from line 1200 of file "
            "fs/xfs/xfs_log.c.  Return address = 0xffffffffa0326a1b",
            "BTRFS warning (device sda2): csum failed root 257 ino 4115546 off 0 csum "
            "0x3e8d9c48 expected csum 0x12711c61 mirror 1",
            "BTRFS info (device sdb1): csum failed ino 262 off 1052672 csum 2566472073 expected "
            "csum 3681334314",
            "btrfs csum failed ino 257 off 0 csum 1238235 expected csum 9842232",
            "BTRFS warning (device nvme0n1p2): checksum verify failed on 30621696 wanted "
            "0x4b2a1c3d found 0x9e3f0c12 level 0",
            "bcachefs (loop0): error in recovery: EINTR",
            "  emergency read only at seq 11",
            "bcachefs (sdc): bch2_fs_start(): error starting filesystem EINTR",
            "                 error not marked as autofix and not in fsck",
        ],
        [
            "EXT4-fs (sda1): mounted filesystem with ordered data mode. Opts: (null)",
            "EXT4-fs (sda1): recovery complete",
            "JBD2: Spotted dirty metadata buffer (dev = sda1, blocknr = 0).",
            "XFS (dm-2): Mounting V5 Filesystem",
            # an administrator's forced unmount (xfs_io -x -c shutdown, umount -f)
            "XFS (dm-0): xfs_do_force_shutdown(0x4) called from line 2158 of file "
            "fs/xfs/xfs_fsops.c.  Return address = 0xffffffffa02f8a6d",
            "BTRFS info (device sda2): disk space caching is enabled",
            "BTRFS warning (device sda2): block group 4194304 has wrong amount of free space",
            "bcachefs (sdc): recovering from unclean shutdown",
            "bcachefs (sdc): shutdown complete",
        ],
    ),
    "fs_recovery": (
        [
            "JBD2: Invalid checksum recovering block 4194315 in log",
            "bcachefs (6c6d1e60-1522-4c84-8c5d-1eba890d8f32): recovering from unclean shutdown",
            "bcachefs (sdc): journal read done, replaying entries 1024568-1024593 (unflushed "
            "1024594-1024622)",
        ],
        [
            "bcachefs (sdc): recovering from clean shutdown, journal seq 4242",
            "JBD2: recovery failed",
        ],
    ),
    "nvme_timeout": (
        [
            "nvme nvme1: I/O 810 QID 2 timeout, aborting",  # 4.x-5.x
            "nvme nvme0: I/O 900 (I/O Cmd) QID 2 timeout, aborting",  # 6.x, name with a space
            "nvme nvme0: I/O 17 (Write Zeroes) QID 4 timeout, aborting",
            "nvme nvme0: I/O tag 5 (0005) opcode 0x2 (Read) QID 3 timeout, aborting",
            "nvme nvme0: I/O tag 12 (100c) opcode 0x9 (Dataset Management) QID 1 timeout, "
            "reset controller",
        ],
        [
            "nvme nvme0: 8/0/0 default/read/poll queues",
            "nvme nvme0: Abort status: 0x0",
        ],
    ),
    "nvme_reset": (
        [
            "nvme nvme0: I/O 900 QID 2 timeout, reset controller",
            "nvme nvme2: I/O 0 QID 0 timeout, reset controller",
            "nvme nvme0: I/O tag 12 (100c) opcode 0x9 (Dataset Management) QID 1 timeout, "
            "reset controller",
        ],
        [
            "nvme nvme0: I/O 900 (I/O Cmd) QID 2 timeout, aborting",  # aborts, no reset yet
            "nvme nvme0: I/O 8 QID 0 timeout, completion polled",
        ],
    ),
    "kernel_bug": (
        [
            "invalid opcode: 0000 [#1] SMP PTI",  # x86 die header of BUG() (ud2), 2.6-6.9
            "invalid opcode: 0000 [#1] PREEMPT SMP PTI",
            "Oops: invalid opcode: 0000 [#1] SMP NOPTI",  # 6.10+
        ],
        [
            "traps: python3[4242] trap invalid opcode ip:7f12a4b5 sp:7ffd1c2e error:0 in "
            "libtorch_cpu.so[7f12a0000000+1000000]",  # a program's crash
            "x86/cpu: VMX (outside TXT) disabled by BIOS",
        ],
    ),
    "mce": (
        ["Oops: Machine check, sig: 7 [#1]"],  # powerpc die() of an unrecovered machine check
        ["Oops: Kernel access of bad area, sig: 11 [#1]"],  # powerpc's ordinary oops
    ),
    "amdgpu_init_failure": (
        [
            "amdgpu 0000:03:00.0: amdgpu: failed to load ucode DMCUB(0x3D)",  # 6.x dev_warn
            "[drm] failed to load ucode SDMA0(0x9)",  # 5.10+ DRM_WARN
            "[drm] failed to load ucode (VCN)",  # 5.4-5.9
            "amdgpu 0000:03:00.0: amdgpu: psp gfx command LOAD_IP_FW(0x6) failed and response "
            "status is (0x11)",
            "[drm] psp gfx command (LOAD_IP_FW) failed and response status is (0xFFFF000A)",
            "[drm] Wait for DMUB auto-load failed: 3",
        ],
        [
            # teardown after an SMU hang: not a firmware load
            "[drm] psp gfx command DESTROY_TMR(0x7) failed and response status is (0x80000306)",
            "amdgpu 0000:03:00.0: amdgpu: RAP: optional rap ta ucode is not available",
            "amdgpu 0000:03:00.0: amdgpu: SMU is initialized successfully!",
            "iwlwifi 0000:02:00.0: failed to load ucode (-110)",  # not the GPU
        ],
    ),
    "amdgpu_smu_timeout": (
        [
            "amdgpu 0000:03:00.0: amdgpu: Fail to disable dpm features!",
            "amdgpu 0000:0d:00.0: amdgpu: Failed to disable smu features.",
            "[drm:amdgpu_device_ip_suspend_phase2 [amdgpu]] *ERROR* suspend of IP block <smu> "
            "failed -62",
        ],
        [
            "[drm:amdgpu_device_ip_suspend_phase2 [amdgpu]] *ERROR* suspend of IP block <psp> "
            "failed -22",
            "amdgpu 0000:03:00.0: amdgpu: SMU is resumed successfully!",
        ],
    ),
    "aer_corrected": (
        [
            "{359}[Hardware Error]:   section_type: PCIe error",
            "[Hardware Error]:   section_type: PCIe error",
        ],
        [
            "{359}[Hardware Error]:   section_type: memory error",
            "{359}[Hardware Error]:  Error 0, type: corrected",
            "{359}[Hardware Error]:   device_id: 0000:20:03.1",
        ],
    ),
    "hung_task": (
        [
            # sched_show_task, the task line of the hung-task report: 5.10-5.13, 5.14+, 6.x
            "task:python3.11      state:D stack:    0 pid:15277 ppid: 15257 flags:0x00000002",
            "task:llama-server    state:D stack:0     pid:4321  ppid:1      flags:0x00004002",
            "task:kworker/u64:3   state:D stack:0     pid:812   tgid:812   ppid:2      "
            "flags:0x00004000",
        ],
        [
            # the RCU stall's dump of its kthread, a running task, the older form
            "task:rcu_preempt     state:I stack:0     pid:16    ppid:2      flags:0x00004000",
            "task:python3         state:R  running task     stack:0     pid:4242  ppid:1",
            "python3         D    0  4321      1 0x00000000",
        ],
    ),
    "oops": (
        [
            "IP: amdgpu_amdkfd_gpuvm_restore_process_bos+0x70/0x4b0 [amdgpu]",  # 4.10-4.14
            "IP: [<ffffffffa01e76c2>] ext4_da_write_begin+0x1c2/0x3a0 [ext4]",  # before 4.10
            " ? page_fault_oops+0x132/0x170",
            " ? __die_body.cold+0x8/0xd",
            " __die_body+0x1a/0x60",
        ],
        [
            "IP: routing cache hash table of 16384 buckets, 128Kbytes",
            " ? exc_page_fault+0x61/0x150",  # every user page fault passes there
            " ? asm_exc_page_fault+0x22/0x30",
        ],
    ),
}


def _record(line: str) -> KernelRecord:
    if line.startswith(U):
        return KernelRecord(line[len(U) :], facility=3)
    return KernelRecord(line, facility=0)


def _tags(line: str) -> set[str]:
    return {h.tag for h in match_record(_record(line))}


@pytest.mark.parametrize("tag", sorted(BATCH_EXAMPLES))
def test_the_source_wording_matches_and_routine_lines_do_not(tag: str) -> None:
    check_wording(BATCH_EXAMPLES, tag, _tags)


def _recorder_says(line: str) -> set[str]:
    hit = triggers.match(b"3,1,2,-;" + line.encode() + b"\n")
    return {hit.tag} if hit else set()


def _catalogue_triggers(line: str) -> set[str]:
    out = set()
    for h in match_record(_record(line)):
        trig = h.signature.trigger
        if (
            trig is not None
            and not trig.codes
            and (not trig.narrow or re.search(trig.narrow, line))
        ):
            out.add(h.tag)
    return out


@pytest.mark.parametrize("tag", sorted(BATCH_EXAMPLES))
def test_the_recorder_starts_an_incident_where_the_catalogue_does(tag: str) -> None:
    positives, negatives = BATCH_EXAMPLES[tag]
    for line in positives + negatives:
        if line.startswith(U):
            continue
        want, got = _catalogue_triggers(line), _recorder_says(line)
        assert got <= want and bool(got) == bool(want), (line, want, got)


GHES = "{359}[Hardware Error]: "


@pytest.mark.parametrize(
    ("severity", "primary"),
    [("corrected", "aer_corrected"), ("fatal", "aer_fatal"), ("recoverable", "aer_nonfatal")],
)
def test_a_firmware_pcie_error_is_named_by_its_event_severity(severity: str, primary: str) -> None:
    # the section line is read with its "Error 0, type: …" line (catalogue/indirect.py
    # CPER_SECTIONS): corrected is a corrected PCIe report, an uncorrected one the AER error,
    # which leads the record's event severity line (ghes_hardware_error)
    lines = (
        GHES + "Hardware error from APEI Generic Hardware Error Source: 512",
        GHES + f"event severity: {severity}",
        GHES + f" Error 0, type: {severity}",
        GHES + "  section_type: PCIe error",
        GHES + "  device_id: 0000:20:03.1",
    )
    assert primary_of(*lines) == primary


@pytest.mark.parametrize(
    ("lines", "primary"),
    [
        (  # 4.x-5.x: the WARN_ONCE header comes first, the watchdog's message after it
            (
                "WARNING: CPU: 0 PID: 0 at net/sched/sch_generic.c:442 dev_watchdog+0x2dc/0x2e4",
                "NETDEV WATCHDOG: eth0 (ethoc): transmit queue 0 timed out",
            ),
            "netdev_tx_timeout",
        ),
        (  # the panic is the end of the OOM, not a cause of its own
            (
                "init invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0, "
                "oom_score_adj=0",
                "Kernel panic - not syncing: Out of memory and no killable processes...",
            ),
            "oom_kill",
        ),
        (  # powerpc dies of a machine check through die(): hardware, not a software oops
            ("Oops: Machine check, sig: 7 [#1]", "NIP [c000000000010c34] 0xc000000000010c34"),
            "mce",
        ),
        (  # a BUG() cut below "kernel BUG at": its die header
            ("invalid opcode: 0000 [#1] SMP PTI", "RIP: 0010:__list_del_entry_valid+0x5c/0x90"),
            "kernel_bug",
        ),
        (
            (
                "Uhhuh. NMI received for unknown reason 2d on CPU 42.",
                "Do you have a strange power saving mode enabled?",
                "Dazed and confused, but trying to continue",
            ),
            "unknown_nmi",
        ),
    ],
)
def test_the_new_wording_leads_where_it_is_the_cause(lines: tuple[str, ...], primary: str) -> None:
    assert primary_of(*lines) == primary


TASK = "task:python3.11      state:D stack:0     pid:15277 ppid:15257  flags:0x00000002"
TRACE = (
    "Call Trace:",
    " <TASK>",
    " __schedule+0x23d/0x590",
    " uvm_ioctl+0x13e0/0x16f0 [nvidia_uvm]",
)


def test_a_hung_task_report_cut_below_its_header_is_a_hung_task() -> None:
    assert primary_of(TASK, *TRACE) == "hung_task"


@pytest.mark.parametrize(
    "header", ["sysrq: Show Blocked State", "SysRq : Show Blocked State", "sysrq: Show State"]
)
def test_a_sysrq_w_dump_is_no_hung_task(header: str) -> None:
    # SysRq w (a person's, or the recorder's own during an incident) prints every D task
    # with the same line, whether it waited a second or an hour
    assert primary_of(header, TASK, *TRACE) is None
    assert (
        primary_of(
            header,
            TASK,
            *TRACE,
            "INFO: task python3.11:15277 blocked for more than 122 seconds.",
            TASK,
            *TRACE,
        )
        == "hung_task"
    )


def _counts(*messages: str) -> dict[str, int]:
    recs = [KernelRecord(m, 3, 0, n, n * 1_000_000, "-") for n, m in enumerate(messages, 1)]
    return {t.tag: t.count for t in Timeline.from_records(recs).tags}


OOM_REPORT = (
    "python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, "
    "oom_score_adj=0",
    "Call Trace:",
    " dump_header+0x4a/0x1f0",
    " oom_kill_process+0xfa/0x120",
    "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,"
    "task_memcg=/user.slice,task=python3,pid=4242,uid=1000",
    "Out of memory: Killed process 4242 (python3) total-vm:1kB, anon-rss:1kB, file-rss:0kB",
)


def test_an_event_is_counted_once_whichever_lines_of_its_report_show_it() -> None:
    # the report's other lines (Signature.context) name the event, its event line counts it
    assert _counts(*OOM_REPORT, *OOM_REPORT)["oom_kill"] == 2
    assert _counts(*OOM_REPORT[:4])["oom_kill"] == 1  # a cut above the kill line
    hung = "INFO: task python3.11:15277 blocked for more than 122 seconds."
    assert _counts(hung, TASK, *TRACE, hung, TASK, *TRACE)["hung_task"] == 2
    nmi = (
        "Uhhuh. NMI received for unknown reason 2d on CPU 42.",
        "Do you have a strange power saving mode enabled?",
        "Dazed and confused, but trying to continue",
    )
    assert _counts(*nmi, *nmi)["unknown_nmi"] == 2
