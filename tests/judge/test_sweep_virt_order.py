"""The culprit order of the virtualisation sweep's families (kmsgd/judge/chains.py): a virtqueue
the guest found corrupt leads the transmit timeout and hung tasks after it, a MANA NIC whose
hardware channel stopped answering leads the queue failures after it."""

from __future__ import annotations

from tests.catalogue.lines import paste_primary

MANA = "mana 7870:00:00.0: "


def test_a_broken_virtqueue_leads_the_transmit_timeout_after_it() -> None:
    text = (
        "[ 811.10] virtio_net virtio0: output.0:id 100 is not a head!\n"
        "[ 816.20] NETDEV WATCHDOG: enp1s0 (virtio_net): transmit queue 0 timed out 5100 ms\n"
        "[ 816.21] virtio_net virtio0 enp1s0: TX timeout on queue: 0, sq: output.0, vq: 0x1, "
        "name: output.0, 5100 usecs ago\n"
    )
    assert paste_primary(text) == "virtio_ring_broken"


def test_a_broken_disk_virtqueue_leads_the_hung_tasks_after_it() -> None:
    text = (
        "[ 811.10] virtio_blk virtio2: req.0:id 300 out of range\n"
        "[ 1004.20] INFO: task jbd2/vda1-8:312 blocked for more than 120 seconds.\n"
        "[ 1004.21] INFO: task postgres:2114 blocked for more than 120 seconds.\n"
    )
    assert paste_primary(text) == "virtio_ring_broken"


def test_a_silent_mana_channel_leads_the_queue_failures_after_it() -> None:
    text = (
        f"[ 528.61] {MANA}HWC: Request timed out!\n"
        f"[ 528.61] {MANA}Failed to send mana message: -110, 0x0\n"
        f"[ 528.62] {MANA[:-2]} enP14804s2: Failed to create WQ object: -110\n"
    )
    assert paste_primary(text) == "mana_hwc_timeout"


def test_a_refused_vmwrite_leads_the_warning_that_prints_it() -> None:
    text = (
        "[ 271.85] ------------[ cut here ]------------\n"
        "[ 271.86] vmwrite failed: field=682a val=0 err=12\n"
        "[ 271.86] WARNING: CPU: 117 PID: 15436 at arch/x86/kvm/vmx/vmx.c:444 "
        "vmwrite_error+0x16b/0x2e0 [kvm_intel]\n"
        "[ 271.88] ---[ end trace 0000000000000000 ]---\n"
    )
    assert paste_primary(text) == "kvm_vmx_instruction_failure"


def test_a_controller_already_down_leads_its_failed_return_from_d3cold() -> None:
    text = (
        "[ 40.99] nvme nvme0: controller is down; will reset: CSTS=0xffffffff, PCI_STATUS "
        "read failed (134)\n"
        "[ 44.01] nvme 0004:41:00.0: can't change power state from D3cold to D0 (config "
        "space inaccessible)\n"
        "[ 44.06] nvme nvme0: Removing after probe failure status: -19\n"
    )
    assert paste_primary(text) != "pci_d3cold_resume_failure"


def test_a_host_shutdown_request_is_never_the_culprit() -> None:
    # the request alone: the guest may have ignored it (its init did not power off)
    text = "[ 812.10] hv_utils: Shutdown request received - graceful shutdown initiated\n"
    assert paste_primary(text) is None
