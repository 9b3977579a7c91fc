"""Storage and network wording corpus batch 9 (docs/accuracy.md) showed missing, and the
sweep of the same drivers' failure wording: each line as the source's format string prints
it (file named in the catalogue entry), beside routine lines of the same driver that must not
match; the firmware loader's rule; ext4's summary of old errors as history; and the culprit
order of the chains these events start (kmsgd/judge/chains.py MAY_CAUSE)."""

from __future__ import annotations

import pytest

from kmsgd.judge.classify import Verdict, classify
from kmsgd.judge.timeline import Timeline
from kmsgd.ring.records import KernelRecord
from tests.catalogue.lines import check_wording

MEGARAID = "megaraid_sas 0000:18:00.0: "
MLX5 = "mlx5_core 0000:61:00.0: "

# tag → (positives, negatives)
BATCH9_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "ceph_connection_error": (
        [
            "libceph: osd10 9.125.70.42:6801 socket closed (con state OPEN)",
            "libceph: mon0 (1)172.31.198.228:6789 socket closed (con state V1_BANNER)",
            "libceph: mon2 (1)172.31.52.146:6789 connect error",
            "libceph: connect (1)172.31.52.146:6789 error -1",
            "libceph: osd3 (2)10.0.0.3:6802 socket error on write",
            "libceph: mon1 10.3.38.219:6790 session lost, hunting for new mon",
            "ceph: mds0 hung",
            "ceph: [4f1e2d3c-0000-4000-8000-00000000cafe 4242]: mds0 closed our session",
        ],
        [
            "libceph: mon0 (1)10.0.0.1:6789 session established",
            "libceph: client4242 fsid 4f1e2d3c-0000-4000-8000-00000000cafe",
            "libceph: osd3 up",
            "ceph: mds0 reconnect success",
        ],
    ),
    "megaraid_fw_fault": (
        [
            MEGARAID + "FW in FAULT state Fault code:0x10000 subcode:0x0 "
            "func:megasas_wait_for_outstanding_fusion",
            MEGARAID + "FW in FAULT state, Fault code:0x10000 subcode:0x0 "
            "func:megasas_transition_to_ready",
            MEGARAID + "Found FW in FAULT state, will reset adapter scsi0.",
            MEGARAID + "resetting fusion adapter scsi0.",
            MEGARAID + "Reset failed, killing adapter scsi0.",
        ],
        [
            MEGARAID + "FW now in Ready state",
            MEGARAID + "Online Controller Reset(OCR)\t: Enabled",
            MEGARAID + "Reset successful for scsi0.",
        ],
    ),
    "mpt3sas_ioc_fault": (
        [
            "mpt3sas_cm0: fault_state(0x2651)!",
            "mpt2sas_cm0: sending diag reset !!",
            "mpt3sas_cm1: diag reset: FAILED",
            "mpt3sas_cm0: SAS host is non-operational !!!!",
        ],
        [
            "mpt3sas_cm0: diag reset: SUCCESS",
            "mpt3sas_cm0: LSISAS3008: FWVersion(16.00.01.00), ChipRevision(0x02)",
        ],
    ),
    "scsi_host_reset": (
        [
            "sd 2:2:0:0: [sda] megasas: RESET cmd=28 retries=0",
            "megasas: [ 0]waiting for 2 commands to complete",
            "megasas: reset successful ",
            MEGARAID + "reset successful",
            MEGARAID + "failed to do reset",
            MEGARAID + "[30]waiting for 65 commands to complete for scsi0",
            "sd 0:0:3:0: attempting task abort!scmd(0x00000000c2a4e948), outstanding for 30012 ms "
            "& timeout 30000 ms",
            "sd 0:0:3:0: attempting task abort! scmd(ffff8881c2a4e948)",
            "mpt3sas_cm0: attempting host reset! scmd(ffff8881c2a4e948)",
        ],
        [
            "scsi host0: Avago SAS based MegaRAID driver",
            "sd 0:0:0:0: Power-on or device reset occurred",
            "mpt3sas_cm0: host reset: SUCCESS scmd(ffff8881c2a4e948)",
            "ixgbe 0000:01:00.0: reset successful",
        ],
    ),
    "disk_io_error": (
        [
            "ata1.00: exception Emask 0x0 SAct 0x80 SErr 0x0 action 0x6 frozen",
            "ata3: reset failed, giving up",
            "sd 2:0:0:0: Device offlined - not ready after error recovery",
            "sd 2:0:0:0: rejecting I/O to offline device",
            "sd 2:0:0:0: [sdb] tag#17 timing out command, waited 180s",
            "blk_update_request: critical medium error, dev sdb, sector 123456",
            "critical target error, dev sdc, sector 0 op 0x1:(WRITE) flags 0x800 phys_seg 1 prio "
            "class 0",
        ],
        [
            # the link's own exception: a PHY event of hot plug or resume
            "ata1: exception Emask 0x10 SAct 0x0 SErr 0x4050000 action 0xe frozen",
            "ata1: SATA link up 6.0 Gbps (SStatus 133 SControl 300)",
            "ata1: hard resetting link",
        ],
    ),
    "nvme_reset": (
        [
            "nvme nvme0: Device not ready; aborting reset, CSTS=0x1",
            "nvme nvme0: Disabling device after reset failure: -19",
            "nvme nvme0: frozen state error detected, reset controller",
            "nvme nvme0: failure state error detected, request disconnect",
            "nvme nvme0: resetting controller due to persistent internal error",
            "nvme nvme0: Fw activation timeout, reset controller",
        ],
        [
            "nvme nvme0: Shutdown timeout set to 8 seconds",
            "nvme nvme0: 16/0/0 default/read/poll queues",
            # a controller that never came up at probe: nvme_probe_failure
            "nvme nvme0: Device not ready; aborting initialisation, CSTS=0x0",
        ],
    ),
    "nvme_timeout": (
        ["nvme nvme1: keep-alive failed: -5", "nvme nvme1: keep-alive failed"],
        ["nvme nvme0: allocated 64 MiB host memory buffer."],
    ),
    "mlx5_cmd_timeout": (
        [
            MLX5 + "wait_func_handle_exec_timeout:1104:(pid 141183): cmd[22]: CREATE_DCT(0x710) "
            "No done completion",
            MLX5 + "wait_func:1132:(pid 141181): CREATE_DCT(0x710) timeout. Will cause a leak "
            "of a command resource",
            MLX5 + "cmd_work_handler:951:(pid 7): cmd[3]: DESTROY_MKEY(0x202) Async, timeout. "
            "Will cause a leak of a command resource",
            MLX5 + "wait_func:1191:(pid 9): QUERY_VPORT_COUNTER(0x770) canceled on out of queue "
            "timeout.",
        ],
        [
            MLX5 + "wait_func_handle_exec_timeout:1153:(pid 1): cmd[3]: QUERY_VPORT_COUNTER"
            "(0x770) recovered after timeout",
            MLX5 + "firmware version: 16.35.2000",
        ],
    ),
    "mlx5_health_error": (
        [
            MLX5 + "poll_health:819:(pid 0): device's health compromised - reached miss count",
            MLX5 + "poll_health:803:(pid 0): Fatal error 1 detected",
            MLX5 + "synd 0x1: firmware internal error",
            MLX5 + "print_health_info:455:(pid 0): synd 0x1: firmware internal error",
        ],
        [MLX5 + "ext_synd 0x0000", MLX5 + "print_health_info:457:(pid 0): ext_synd 0x8f7a"],
    ),
    "bnxt_fw_fault": (
        [
            "bnxt_en 0000:3b:00.0 eth0: Detected firmware fatal condition, initiating reset",
            "bnxt_en 0000:3b:00.0 eth0: Firmware not responding, status: 0x8000",
            "bnxt_en 0000:3b:00.0 eth0: Firmware reset aborted, rc = -19",
            "bnxt_en 0000:3b:00.0 eth0: Firmware reset aborted",
        ],
        [
            "bnxt_en 0000:3b:00.0 eth0: Firmware reset request successful.",
            "bnxt_en 0000:3b:00.0: Firmware reset already in progress",
            "bnxt_en 0000:3b:00.0 (unnamed net_device) (uninitialized): Device requests max "
            "timeout of 100 seconds, may trigger hung task watchdog (kernel default 120s)",
        ],
    ),
    "netdev_tx_timeout": (
        [
            "ixgbe 0000:01:00.0 eth0: Detected Tx Unit Hang",
            "ixgbe 0000:01:00.0 eth0: tx hang 1 detected on queue 3, resetting adapter",
            "e1000e 0000:00:1f.6 eno1: Detected Hardware Unit Hang:",
            "i40e 0000:3b:00.0 eth0: tx_timeout recovery level 1, txqueue 6",
            "i40e 0000:3b:00.0 eth0: tx_timeout recovery level 2, hung_queue 6",
            "ice 0000:3b:00.0 ens1f0: tx_timeout recovery level 2, txqueue 4",
            "bnxt_en 0000:3b:00.0 eth0: TX timeout detected, starting reset task!",
            "mlx5_core 0000:3b:00.0 ens1f0np0: TX timeout detected",
            "mlx5_core 0000:3b:00.0 ens1f0np0: TX timeout on queue: 5, SQ: 0x9a, CQ: 0x4c5, "
            "SQ Cons: 0x0 SQ Prod: 0x1, usecs since last trans: 12288000",
            "ib0: transmit timeout: latency 10240 msecs",
        ],
        [
            "ixgbe 0000:01:00.0 eth0: NIC Link is Up 10 Gbps, Flow Control: RX/TX",
            "ixgbe 0000:01:00.0 eth0: Reset adapter",
            "bnxt_en 0000:3b:00.0 eth0: NIC Link is Up, 25000 Mbps full duplex",
        ],
    ),
    "cifs_server_not_responding": (
        [
            r"CIFS: VFS: \\nas01 has not responded in 180 seconds. Reconnecting...",
            "CIFS VFS: Server nas01 has not responded in 120 seconds. Reconnecting...",
        ],
        [
            r"CIFS: VFS: \\nas01 Send error in SessSetup = -11",
            "CIFS: Attempting to mount \\\\nas01\\share",
        ],
    ),
    "md_disk_failure": (
        [
            "md/raid1:md0: Disk failure on sdb1, disabling device.",
            "md/raid:md127: Disk failure on sdc, disabling device.",
            "md/raid10:md2: Disk failure on nvme1n1p1, disabling device.",
            "md/raid1:md0: sdb1: unrecoverable I/O read error for block 123456",
            "md/raid:md127: read error not correctable (sector 2048 on sdc).",
        ],
        [
            "md/raid1:md0: active with 2 out of 2 mirrors",
            "md/raid1:md0: Operation continuing on 1 devices.",
            "md: recovery of RAID array md0",
        ],
    ),
    "multipath_path_failure": (
        [
            "device-mapper: multipath: 253:0: Failing path 8:32.",
            "device-mapper: multipath: Failing path 8:32.",
        ],
        [
            "device-mapper: multipath: 253:0: Reinstating path 8:32.",
            "device-mapper: multipath round-robin: version 1.2.0 loaded",
        ],
    ),
    "dm_thin_pool_failure": (
        [
            "device-mapper: thin: 253:2: switching pool to out-of-data-space (queue IO) mode",
            "device-mapper: thin: 253:2: switching pool to read-only mode",
            "device-mapper: thin: 253:2: switching pool to fail mode",
            "device-mapper: thin: 253:2: metadata operation 'dm_pool_commit_metadata' failed: "
            "error = -5",
        ],
        [
            "device-mapper: thin: 253:2: switching pool to write mode",
            "device-mapper: thin: Data device (dm-1) discard unsupported: Disabling discard "
            "passdown.",
        ],
    ),
    "firmware_load_failure": (
        [
            "bnx2x: [bnx2x_init_firmware:12987(enp2s0f0)]Can't load firmware file "
            "bnx2x/bnx2x-e1h-7.10.51.0.fw",
            "bnx2x: [bnx2x_func_hw_init:5523(enp2s0f0)]Error loading firmware",
            "bnx2x: [bnx2x_nic_load:2706(enp2s0f0)]HW init failed, aborting",
            'bnx2: Can\'t load firmware file "bnx2/bnx2-mips-09-6.2.1b.fw"',
            "iwlwifi 0000:00:14.3: no suitable firmware found!",
            "qla2xxx [0000:81:00.0]-0063:2: Failed to load firmware image (ql2500_fw.bin).",
            "mt7921e 0000:02:00.0: Failed to load firmware",
        ],
        [
            # the loader's own line: routine, drivers try optional and newer files first
            "platform regulatory.0: Direct firmware load for regulatory.db failed with error -2",
            "bnx2x 0000:02:00.0: Direct firmware load for bnx2x/bnx2x-e1h-7.13.15.0.fw failed "
            "with error -2",
            # a patch the driver runs without
            "r8169 0000:02:00.0: unable to load firmware patch rtl_nic/rtl8168h-2.fw (-2)",
            # the GPU drivers' own entries
            "amdgpu 0000:03:00.0: amdgpu: failed to load firmware",
            "[drm:amdgpu_device_init [amdgpu]] *ERROR* Failed to load gpu_info firmware",
            "iwlwifi 0000:00:14.3: loaded firmware version 72.daa05125.0 ty-a0-gf-a0-72.ucode",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(BATCH9_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(BATCH9_EXAMPLES, tag)


def _verdict(*messages: str) -> Verdict:
    # at an uptime of hours: nothing here is a boot's start
    recs = [KernelRecord(m, 3, 0, n, (9000 + n) * 1_000_000, "-") for n, m in enumerate(messages)]
    return classify(Timeline.from_records(recs))


def _primary(*messages: str) -> str | None:
    v = _verdict(*messages)
    return v.primary.tag if v.primary else None


HUNG = "INFO: task kworker/u64:2:1234 blocked for more than 122 seconds."
IO = "blk_update_request: I/O error, dev sda, sector 2048 op 0x0:(READ) flags 0x0"
LOADER = (
    "bnx2x 0000:02:00.0: Direct firmware load for bnx2x/bnx2x-e1h-7.10.51.0.fw failed with error -2"
)


def test_the_firmware_loader_alone_is_routine_and_the_driver_giving_up_is_the_failure() -> None:
    """A driver may ask for files it can do without; the failure is its own give-up."""
    assert _primary(LOADER) is None
    assert _primary(LOADER, "bnx2x 0000:02:00.0: Falling back to user helper") is None
    assert _primary(LOADER, "bnx2x: [bnx2x_nic_load:2706(enp2s0f0)]HW init failed, aborting") == (
        "firmware_load_failure"
    )


SUMMARY = (
    "EXT4-fs (sda1): error count since last fsck: 3",
    "EXT4-fs (sda1): initial error at time 1529034124: ext4_find_entry:1312: inode 27787278",
    "EXT4-fs (sda1): last error at time 1529054176: ext4_find_entry:1312",
)


def test_ext4_s_summary_of_old_errors_is_history_not_this_boot_s_failure() -> None:
    """print_daily_error_info repeats, every day, errors recorded in the past: alone it is the
    routine history the report shows; it never leads a failure of this boot, nor explains
    the tasks that hang in it."""
    alone = _verdict(*SUMMARY)
    assert alone.primary is not None and alone.primary.tag == "fs_error"
    assert alone.routine_only
    assert _primary(*SUMMARY, HUNG) == "hung_task"
    assert _primary(*SUMMARY, "watchdog: BUG: soft lockup - CPU#3 stuck for 22s! [a:1]") == (
        "soft_lockup"
    )


def test_a_file_system_error_after_the_summary_is_a_failure_of_its_own() -> None:
    error = "EXT4-fs error (device sda1): ext4_lookup:1855: comm python3: deleted inode referenced"
    v = _verdict(*SUMMARY, error, HUNG)
    assert v.primary is not None and v.primary.tag == "fs_error" and not v.routine_only
    assert v.primary.first.line.message == error


def test_a_raid_controller_s_firmware_fault_leads_the_resets_and_errors_it_causes() -> None:
    assert (
        _primary(
            "sd 0:2:0:0: [sda] megasas: RESET cmd=28 retries=0",
            MEGARAID + "[ 0]waiting for 12 commands to complete for scsi0",
            MEGARAID + "FW in FAULT state Fault code:0x10000 subcode:0x0 func:megasas_wait_for_"
            "outstanding_fusion",
            MEGARAID + "resetting fusion adapter scsi0.",
            IO,
            HUNG,
        )
        == "megaraid_fw_fault"
    )
    # without a fault, the error handler's resets lead the I/O errors and hung tasks
    assert _primary("sd 2:2:0:0: [sda] megasas: RESET cmd=28 retries=0", IO, HUNG) == (
        "scsi_host_reset"
    )


def test_the_ceph_client_losing_its_cluster_leads_what_waits_on_it() -> None:
    closed = "libceph: mon0 (1)172.31.198.228:6789 socket closed (con state V1_BANNER)"
    assert _primary(closed, HUNG) == "ceph_connection_error"
    assert _primary(closed, "rcu: INFO: rcu_sched detected stalls on CPUs/tasks:") == (
        "ceph_connection_error"
    )


def test_an_mlx5_firmware_that_failed_its_health_leads_the_command_timeouts() -> None:
    timeout = (
        MLX5 + "wait_func:1132:(pid 141181): CREATE_DCT(0x710) timeout. Will cause a leak of a "
        "command resource"
    )
    health = MLX5 + "poll_health:819:(pid 0): device's health compromised - reached miss count"
    assert _primary(timeout, health, HUNG) == "mlx5_health_error"
    assert _primary(timeout, HUNG) == "mlx5_cmd_timeout"


def test_a_thin_pool_out_of_space_leads_the_tasks_whose_writes_it_queues() -> None:
    full = "device-mapper: thin: 253:2: switching pool to out-of-data-space (queue IO) mode"
    assert _primary(full, HUNG) == "dm_thin_pool_failure"


def test_a_raid_member_s_own_io_errors_lead_its_failure() -> None:
    """md fails a member after I/O on it failed: the disk's error is the cause."""
    failed = "md/raid1:md0: Disk failure on sda1, disabling device."
    assert _primary(IO, failed) == "disk_io_error"
    assert _primary(failed) == "md_disk_failure"
