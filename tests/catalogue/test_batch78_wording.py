"""Wording corpus batches 7 and 8 (docs/accuracy.md) showed missing: each line as the source's
format string prints it (file named in the catalogue entry), beside the lines of the same
driver or the same words from another one that must not match, and the culprit order of the
chains these events start (kmsgd/judge/chains.py MAY_CAUSE)."""

from __future__ import annotations

import pytest

from kmsgd.catalogue.table import match_record
from kmsgd.judge.chains import caused_by
from kmsgd.judge.classify import classify
from kmsgd.judge.timeline import Timeline
from kmsgd.ring.records import KernelRecord
from tests.catalogue.lines import check_wording

# tag → (positives, negatives)
BATCH78_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "amdgpu_illegal_register_access": (
        [
            "[drm:gfx_v10_0_priv_reg_irq [amdgpu]] *ERROR* Illegal register access in command "
            "stream",
            "[drm:gfx_v9_0_priv_inst_irq [amdgpu]] *ERROR* Illegal instruction in command stream",
            "amdgpu 0000:03:00.0: amdgpu: Illegal register access in command stream",
        ],
        [
            # radeon prints the same words from its own interrupt handler
            "[drm:cik_irq_process [radeon]] *ERROR* Illegal register access in command stream",
        ],
    ),
    "amdgpu_vf_mailbox_error": (
        [
            "trn=2 ACK should not assert! wait again !",
            "amdgpu 0000:03:00.0: amdgpu: trn=2 ACK should not assert! wait again !",
        ],
        ["amdgpu 0000:03:00.0: amdgpu: Doesn't get ack from pf, continue"],
    ),
    "nvidia_modeset_error": (
        [
            "nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: "
            "0x0000ca7e:0:0:0x00000062",
            "nvidia-modeset: ERROR: GPU:0: Error while waiting for GPU progress: "
            "0x0000ca7d:0 2:0:200:192",
        ],
        [
            "nvidia-modeset: WARNING: GPU:0: Lost display notification (0:0x00000000); continuing.",
            "nvidia-modeset: Allocated GPU:0 (GPU-1d6b3b52) @ PCI:0000:01:00.0",
        ],
    ),
    "nvidia_reset_required": (
        [
            "NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required "
            "[NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @ kernel_channel.c:2827",
        ],
        [
            "NVRM: nvAssertOkFailedNoLog: Assertion failed: Out of memory [NV_ERR_NO_MEMORY] "
            "(0x00000051) returned from status @ kernel_gsp.c:4615"
        ],
    ),
    "i915_gpu_hang": (
        [
            "[drm] GPU HANG: ecode 9:0:0x85dffffb, in chameleon [1296], reason: Hang on render "
            "ring, action: reset",
            "i915 0000:00:02.0: [drm] GPU HANG: ecode 12:1:0020fffe, in xdg-desktop-por [1676]",
            "drm/i915: Resetting chip after gpu hang",
            "i915 0000:00:02.0: Resetting rcs0 for hang on rcs0",
            "i915 0000:00:02.0: [drm] Resetting chip for GuC failed to reset engine mask=0x1",
            "i915 0000:00:02.0: [drm] *ERROR* rcs0 reset request timed out: {request: 00000001, "
            "RESET_CTL: 00000001}",
            "i915 0000:00:02.0: [drm] *ERROR* GT0: GUC: Engine reset failed on 0:0 (rcs0) "
            "because 0x00000001",
            "xe 0000:00:02.0: [drm] GT0: Timedout job: seqno=4242, lrc_seqno=4242, guc_id=3, "
            "flags=0x0 in glmark2 [1234]",
            "xe 0000:03:00.0: [drm] Timedout job: seqno=100, guc_id=2, flags=0x8",
            "xe 0000:00:02.0: [drm] GT0: Engine reset: engine_class=rcs, logical_mask: 0x1, "
            "guc_id=3",
        ],
        [
            "[drm] GPU hangs can indicate a bug anywhere in the entire gfx stack, including "
            "userspace.",
            "i915 0000:00:02.0: [drm] GT0: GuC firmware i915/adlp_guc_70.bin version 70.5.1",
            # another driver's reset of the same shape
            "mlx5_core 0000:3b:00.0: Resetting port for recovery",
        ],
    ),
    "iscsi_connection_error": (
        [
            " connection1:0: ping timeout of 5 secs expired, recv timeout 5, last rx "
            "4612295841, last ping 4612297092, now 4612298344",
            " connection1:0: detected conn error (1022)",
            " session1: session recovery timed out after 120 secs",
        ],
        [
            "scsi host7: iSCSI Initiator over TCP/IP",
            "iscsi: registered transport (tcp)",
        ],
    ),
    "fc_link_down": (
        ["qla2xxx [0000:81:00.1]-500b:10: LOOP DOWN detected (2 7 0 0)."],
        ["qla2xxx [0000:81:00.1]-500a:10: LOOP UP detected (8 Gbps)."],
    ),
    "nfs_server_not_responding": (
        [
            "nfs: server ease not responding, still trying",
            "nfs: server nas01 not responding, timed out",
            "lockd: server 10.0.0.5 not responding, still trying",
        ],
        ["nfs: server ease OK"],
    ),
    "fs_error": (
        [
            "EXT4-fs warning (device dm-8): ext4_end_bio:316: I/O error -5 writing to inode "
            "24117995 (offset 0 size 0 starting block 96511296)",
            "EXT4-fs warning (device sda1): ext4_end_bio:349: I/O error 10 writing to inode 12 "
            "(offset 0 size 4096 starting block 8)",
        ],
        ["EXT4-fs warning (device sda1): ext4_dx_add_entry:2352: Directory index full!"],
    ),
}


def _tags(line: str) -> set[str]:
    return {h.tag for h in match_record(KernelRecord(line, facility=0))}


@pytest.mark.parametrize("tag", sorted(BATCH78_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(BATCH78_EXAMPLES, tag, _tags)


def _primary(*messages: str) -> str | None:
    recs = [KernelRecord(m, 3, 0, n, n * 1_000_000, "-") for n, m in enumerate(messages, 1)]
    verdict = classify(Timeline.from_records(recs))
    return verdict.primary.tag if verdict.primary else None


ILLEGAL = "[drm:gfx_v10_0_priv_reg_irq [amdgpu]] *ERROR* Illegal register access in command stream"
RING_TIMEOUT = (
    "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=1, "
    "emitted seq=3"
)
CONN = " connection1:0: detected conn error (1022)"
LOOP = "qla2xxx [0000:81:00.1]-500b:10: LOOP DOWN detected (2 7 0 0)."
IO = "blk_update_request: I/O error, dev sde, sector 2048 op 0x0:(READ) flags 0x0"
EXT4 = (
    "EXT4-fs warning (device dm-8): ext4_end_bio:316: I/O error -5 writing to inode 24117995 "
    "(offset 0 size 0 starting block 96511296)"
)
NFS = "nfs: server ease not responding, still trying"
HUNG = "INFO: task objcopy:2291 blocked for more than 120 seconds."


def test_an_illegal_register_access_leads_the_ring_timeout_it_causes() -> None:
    assert _primary(ILLEGAL, RING_TIMEOUT, "amdgpu 0000:04:00.0: amdgpu: GPU reset begin!") == (
        "amdgpu_illegal_register_access"
    )


@pytest.mark.parametrize("transport", [CONN, LOOP, NFS])
def test_a_transport_failure_leads_the_io_errors_after_it(transport: str) -> None:
    (cause,) = _tags(transport)
    assert _primary(transport, IO, EXT4) == cause
    # the relation, not only the stage: each failure after the transport's is its effect
    tags = Timeline.from_records(
        [
            KernelRecord(m, 3, 0, n, n * 1_000_000, "-")
            for n, m in enumerate((transport, IO, EXT4, HUNG), 1)
        ]
    ).tags
    by_tag = {t.tag: t for t in tags}
    for effect in ("disk_io_error", "fs_error", "hung_task"):
        found = caused_by(by_tag[effect], tags)
        assert found is not None and found.tag == cause, effect


def test_an_nfs_outage_leads_the_tasks_it_blocks_until_the_server_answers_again() -> None:
    assert _primary(NFS, HUNG) == "nfs_server_not_responding"
    # the server answered ("server X OK"): a task blocked after that is a failure of its own
    assert _primary(NFS, "nfs: server ease OK", HUNG) == "hung_task"


def test_an_nfs_recovery_closes_only_the_nfs_chain() -> None:
    # a GPU that fell off the bus before the NFS server came back still leads what follows
    xid = "NVRM: Xid (PCI:0000:41:00): 79, pid=1, GPU has fallen off the bus."
    assert _primary(xid, NFS, "nfs: server ease OK", HUNG) == "nvidia_xid_79"
