"""Corpus batch 20's SoC GPU, NVIDIA RPC and BSD reboot misses (docs/accuracy.md): each line
as its source's format string prints it (file named in the catalogue entry), the lines with
the same words that must not match, and what the judge makes of them."""

from __future__ import annotations

import io

import pytest

from kmsgd.commands.analyze import analyze_report
from tests.catalogue.lines import check_wording

# tag → (positives, negatives)
FIX20B_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "soc_gpu_hang": (
        [
            # lima_mmu.c lima_mmu_irq_handler, on a GP and a PP core's MMU
            "lima 1c40000.gpu: mmu page fault at 0x121020 from bus id 0 of type read on ppmmu0",
            "lima 1c40000.gpu: mmu page fault at 0x2000 from bus id 3 of type write on gpmmu",
            # etnaviv_gpu.c dump_mmu_fault, a SoC core and a PCI-bound one
            "etnaviv-gpu 130000.gpu: MMU fault status 0x00000002",
            "etnaviv 0000:00:06.0: MMU fault status 0x00000002",
            # etnaviv_gpu.c etnaviv_gpu_recover_hang through a PCI glue driver
            "etnaviv 0000:00:06.0: recover hung GPU!",
            # asahi gpu.rs, the firmware's timeout event
            "asahi 206400000.gpu: ** GPU timeout nya~!!!!! **",
        ],
        [
            # the recovery after the fault, and the fault's detail lines
            "lima 1c40000.gpu: mmu resume",
            "etnaviv 0000:00:06.0: MMU 0 fault addr 0x00875000",
            "asahi 206400000.gpu:   Timeout count: 168",
            "asahi 206400000.gpu:   Attempting recovery...",
        ],
    ),
    "nvidia_gsp_rpc_failure": (
        [
            # rpc.c rpcRmApiAlloc_GSP / rpcRmApiFree_GSP
            "NVRM: rpcRmApiAlloc_GSP: GspRmAlloc failed: hClient=0xc1d1a616; hParent=0x5c000054; "
            "hObject=0x5c00005b; hClass=0x0000c86f; paramsSize=0x00000170; "
            "paramsStatus=0x00000062; status=0x00000062",
            "NVRM: GPU0 rpcRmApiFree_GSP: GspRmFree failed: hClient=0xc1d00029; "
            "hObject=0xbeef0100; paramsStatus=0x00000000; status=0x0000000f",
        ],
        [
            # a user's note naming the call is not the driver's line
            "GspRmAlloc failed for every class in my test",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(FIX20B_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(FIX20B_EXAMPLES, tag)


def _judge(text: str) -> tuple[str, str]:
    report, _ = analyze_report(io.BytesIO(text.encode()), name="paste")
    return (report.primary.tag if report.primary else "", report.outcome.value)


def test_a_soc_gpu_fault_leads_the_warning_its_recovery_trips() -> None:
    paste = (
        "[   35.90] etnaviv 0000:00:06.0: MMU fault status 0x00000002\n"
        "[   36.96] etnaviv 0000:00:06.0: recover hung GPU!\n"
        "[   36.96] ------------[ cut here ]------------\n"
        "[   36.97] WARNING: CPU: 2 PID: 2244 at include/linux/dma-fence.h:533 "
        "drm_sched_resubmit_jobs+0x208/0x228\n"
    )
    assert _judge(paste)[0] == "soc_gpu_hang"


def test_a_failed_gsp_rpc_leads_the_assertions_interleaved_with_it() -> None:
    paste = (
        "[ 10.0] NVRM: nvAssertFailedNoLog: Assertion failed: (status == NV_OK) || (status == "
        "NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_server.c:1375\n"
        "[ 10.0] NVRM: GPU0 _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f "
        "for fn 10 sequence 12303!\n"
        "[ 10.0] NVRM: GPU0 nvAssertFailedNoLog: Assertion failed: (status == NV_OK) || "
        "(status == NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_client.c:844\n"
    )
    assert _judge(paste)[0] == "nvidia_gsp_rpc_failure"


def test_a_gpu_needing_a_reset_leads_the_allocations_it_fails() -> None:
    paste = (
        "[ 10.0] NVRM: rpcRmApiAlloc_GSP: GspRmAlloc failed: hClient=0xc1d1a616; "
        "hParent=0x5c000054; hObject=0x5c00005b; hClass=0x0000c86f; paramsSize=0x00000170; "
        "paramsStatus=0x00000062; status=0x00000062\n"
        "[ 10.0] NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required "
        "[NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @ kernel_channel.c:2874\n"
    )
    assert _judge(paste)[0] == "nvidia_reset_required"


def test_bsd_shutdowns_reboot_line_is_a_clean_reboot() -> None:
    paste = (
        "Dec 13 00:34:26 bs kernel: drmn0: fb0: inteldrmfb frame buffer device\n"
        "Dec 13 00:40:20 bs shutdown: reboot by root: \n"
        "Dec 13 00:40:23 bs syslogd: exiting on signal 15\n"
    )
    assert _judge(paste) == ("", "clean_reboot")


def test_a_halt_by_shutdown_is_a_clean_shutdown_and_a_user_saying_it_is_not() -> None:
    halt = "Dec 13 00:40:20 bs shutdown: halt by root: maintenance\n"
    assert _judge(halt) == ("", "clean_shutdown")
    said = "Dec 13 00:40:20 bs kernel: x\nDec 13 00:40:20 bs bash[12]: reboot by root: ok\n"
    assert _judge(said)[1] not in ("clean_reboot", "clean_shutdown")
