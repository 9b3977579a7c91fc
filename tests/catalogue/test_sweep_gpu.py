"""The GPU failure families added from the drivers' source (NVIDIA's open-gpu-kernel-modules,
drivers/gpu/drm/amd): each wording as its format string prints it behind its printing
macro's prefix, read through kmsgd's own reader, the routine lines beside it that must not
become culprits, and each family's place in the culprit order."""

from __future__ import annotations

import io

import pytest

from kmsgd.catalogue.table import match_record
from kmsgd.commands.analyze import analyze_report
from kmsgd.ring.records import KernelRecord

# tag → (lines that carry it, lines with the same words that must not)
SWEEP_GPU_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "nvidia_gsp_rpc_failure": (
        [
            "NVRM: GspMsgQueueSendCommand: Encryption failed with status = 0x1f.",
            "NVRM: _kgspRpcSendMessage: GspMsgQueueSendCommand failed on GPU0: 0x1f",
            "NVRM: GPU1 _kgspRpcSendMessage: GspMsgQueueSendCommand failed: 0x65",
            "NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x0000001f for fn 10!",
            "NVRM: GPU3 _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 78 "
            "sequence 1091!",
            "NVRM: GPU0 _issueRpcAndWaitLarge: rpcRecvPoll failed with status 0x00000062 for "
            "fn 76!",
            "NVRM: GPU0 GspMsgQueueReceiveStatus: Fatal error detected in RPC decrypt: 0x1f!",
        ],
        [
            # the receive side's recovered retry, and a userspace tool's own words
            "NVRM: GPU0 GspMsgQueueReceiveStatus: Read succeeded with 2 retries.",
            "AES encryption failed with status = 0x1f.",
        ],
    ),
    "nvidia_gsp_timeout": (
        [
            "NVRM: GPU0 _issueRpcAndWait: rpcRecvPoll timedout for fn 76!",
            "NVRM: _issueRpcAndWait: rpcRecvPoll timedout for fn 10 sequence 2201!",
        ],
        ["NVRM: GPU0 _issueRpcAndWait: rpcRecvPoll failed with status 0x00000062 for fn 76!"],
    ),
}


def _tags(line: str, facility: int = 0) -> set[str]:
    return {h.tag for h in match_record(KernelRecord(line, facility=facility))}


def _primary(text: str) -> str | None:
    p = analyze_report(io.BytesIO(text.encode()), name="paste")[0].primary
    return p.tag if p is not None else None


@pytest.mark.parametrize("tag", sorted(SWEEP_GPU_EXAMPLES))
def test_the_source_wording_matches_and_the_lines_beside_it_do_not(tag: str) -> None:
    positives, negatives = SWEEP_GPU_EXAMPLES[tag]
    for line in positives:
        assert tag in _tags(line), line
    for line in negatives:
        assert tag not in _tags(line), line


def test_a_userspace_line_with_the_rpc_words_is_not_the_drivers() -> None:
    line = "NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x0000001f for fn 10!"
    assert "nvidia_gsp_rpc_failure" not in _tags("logger[7]: " + line, facility=1)


def test_an_rpc_failure_leads_the_init_failure_and_oops_after_it() -> None:
    # message_queue_cpu.c fails to encrypt the queue element, every RPC after fails, and the
    # adapter's re-init fails in turn: the failing RPC path is the earliest link
    text = (
        "[38679.045446] NVRM: GspMsgQueueSendCommand: Encryption failed with status = 0x1f.\n"
        "[38679.047129] NVRM: _kgspRpcSendMessage: GspMsgQueueSendCommand failed on GPU0: 0x1f\n"
        "[38679.048864] NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x0000001f "
        "for fn 10!\n"
        "[38679.711611] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x1f:1436)\n"
        "[38679.717571] NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0\n"
        "[38679.942747] BUG: unable to handle page fault for address: 00000000000152ba\n"
    )
    assert _primary(text) == "nvidia_gsp_rpc_failure"


def test_a_gpu_lost_from_the_bus_leads_the_rpc_failures_it_causes() -> None:
    text = (
        "[ 812.100001] NVRM: GPU0 _issueRpcAndWait: rpcSendMessage failed with status "
        "0x0000000f for fn 10!\n"
        "[ 812.100002] NVRM: GPU 0000:41:00.0: GPU has fallen off the bus.\n"
        "[ 812.100003] NVRM: Xid (PCI:0000:41:00): 79, pid=1, name=python3, GPU has fallen "
        "off the bus.\n"
    )
    assert _primary(text) in {"gpu_fell_off_bus", "nvidia_xid_79"}
