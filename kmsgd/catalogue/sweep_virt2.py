"""The virtualisation source sweep, continued (kmsgd/catalogue/sweep_virt.py): Google Cloud's
gVNIC that stopped answering or could not be reset (drivers/net/ethernet/google/gve), and the
VMX instructions a KVM host's CPU refused (arch/x86/kvm/vmx). Tests:
tests/catalogue/test_sweep_virt.py.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig

VIRT = "virt"
NET = "net"

SWEEP_VIRT2_SIGNATURES: tuple[Signature, ...] = (
    # drivers/net/ethernet/google/gve (Google Cloud's gVNIC): gve_adminq.c
    # gve_adminq_kick_and_wait dev_err "AQ commands timed out, need to reset AQ" (5.3-6.18):
    # the device stopped completing admin-queue commands; and gve_main.c's turndowns when
    # it cannot be brought back, "Reset failed! !!! DISABLING ALL QUEUES !!!" (gve_reset_
    # recovery, 5.3-6.18), "Adjust queues failed! …", "Set features failed! …" (5.4-6.18),
    # "PCI reset failed! …" (gve_reset_done, 6.1-6.18), "Adjust config failed to start new
    # queues, …" (6.9-6.18): every queue is down, and the VM is off the network.
    sig(
        "gve_device_failure",
        r"\bAQ commands timed out, need to reset AQ\b|\bfailed(?: to start new queues,|!) "
        r"!!! DISABLING ALL QUEUES !!!",
        ("AQ", "DISABLING"),
        Severity.ERROR,
        NET,
        "The Google Cloud gVNIC (gve) stopped answering its admin queue or could not be reset: "
        "the driver turned every queue down, and the VM is off the network on it.",
        "Check the Google Cloud host side at that time (a host maintenance or live migration "
        "event) and update the gve driver; a reboot or stop/start of the VM brings the NIC "
        "back.",
        50,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "AQ commands timed out, need to reset AQ",
                "drivers/net/ethernet/google/gve/gve_adminq.c",
                "5.3-6.18",
                "gve 0000:00:04.0: ",
            ),
            Format(
                "Reset failed! !!! DISABLING ALL QUEUES !!!",
                "drivers/net/ethernet/google/gve/gve_main.c",
                "5.3-6.18",
                "gve 0000:00:04.0: ",
            ),
            Format(
                "PCI reset failed! !!! DISABLING ALL QUEUES !!!",
                "drivers/net/ethernet/google/gve/gve_main.c",
                "6.1-6.18",
                "gve 0000:00:04.0: ",
            ),
            Format(
                "Adjust config failed to start new queues, !!! DISABLING ALL QUEUES !!!",
                "drivers/net/ethernet/google/gve/gve_main.c",
                "6.9-6.18",
                "gve 0000:00:04.0 ens4: ",
            ),
        ),
    ),
    # arch/x86/kvm/vmx/vmx.c (vmx_ops.h's helpers) vmx_insn_failed = WARN_ONCE +
    # pr_warn_ratelimited of one format: "kvm: vmwrite failed: field=%lx val=%lx err=%d",
    # "kvm: vmread failed: field=%lx", "kvm: vmclear failed: %p/%llx", "kvm: vmptrld failed:
    # %p/%llx", "kvm: invvpid failed: …", "kvm: invept failed: …" (5.4-6.1), the same without
    # "kvm: " behind pr_fmt "kvm_intel: " and with " err=%u" (6.2-6.18); 4.x vmwrite_error
    # printk "vmwrite error: reg %lx value %lx (err %d)", vmcs_clear "kvm: vmclear fail:
    # %p/%llx", vmcs_load "kvm: vmptrld %p/%llx failed". A VMX instruction the CPU refused: a
    # KVM bug, or VMX taken over by something else (another hypervisor, pKVM, a firmware SMM
    # handler); the vCPUs on that CPU misbehave or the VM dies.
    sig(
        "kvm_vmx_instruction_failure",
        r"^(?:kvm_intel: |kvm: )?(?:vm(?:write|read) failed: field=[0-9a-f]+"
        r"|vm(?:clear|ptrld) failed: [0-9a-fx]+/[0-9a-f]+|inv(?:vpid|ept) failed: ext=0x"
        r"|vmwrite error: reg [0-9a-f]+ value [0-9a-f]+ \(err -?\d+\)|vmclear fail: "
        r"[0-9a-fx]+/[0-9a-f]+|vmptrld [0-9a-fx]+/[0-9a-f]+ failed)",
        ("vmwrite", "vmread", "vmclear", "vmptrld", "invvpid", "invept"),
        Severity.ERROR,
        VIRT,
        "A VMX instruction KVM issued failed on the host CPU: the virtual machines on that "
        "CPU run on a corrupt VMCS, and misbehave or are killed.",
        "Note the kernel and the failing instruction and field (the WARNING's stack says "
        "where); check nothing else (another hypervisor's module, pKVM) uses VMX and update "
        "the kernel and the CPU microcode.",
        45,
        formats=(
            Format(
                "vmwrite failed: field=%lx val=%lx err=%u",
                "arch/x86/kvm/vmx/vmx.c",
                "6.2-6.18",
                "kvm_intel: ",
                args=(0x682A, 0, 12),
            ),
            Format(
                "kvm: vmwrite failed: field=%lx val=%lx err=%d",
                "arch/x86/kvm/vmx/vmx.c",
                "5.4-6.1",
                args=(2, 0xF2, 0),
            ),
            Format(
                "kvm: vmread failed: field=%lx",
                "arch/x86/kvm/vmx/vmx.c",
                "5.4-6.1",
                args=(0x4402,),
            ),
            Format(
                "vmclear failed: %p/%llx err=%u",
                "arch/x86/kvm/vmx/vmx.c",
                "6.2-6.18",
                "kvm_intel: ",
                args=("00000000ab3c1e6f", 0x1F6A0000, 3),
            ),
            Format(
                "vmwrite error: reg %lx value %lx (err %d)",
                "arch/x86/kvm/vmx.c",
                "4.4-4.18",
                args=(0x6C00, 0, 12),
            ),
            Format(
                "kvm: vmptrld %p/%llx failed",
                "arch/x86/kvm/vmx.c",
                "4.4-4.18",
                args=("ffff8807f0b0c000", 0x7F0B0C000),
            ),
        ),
    ),
    # drivers/infiniband/hw/efa/efa_com.c (AWS's Elastic Fabric Adapter, 5.2-6.18):
    # efa_com_wait_and_process_admin_cq_interrupts ibdev_err_ratelimited "The device didn't
    # send any completion for admin cmd %s(%d) status %d (ctx 0x%p, …)" and "The device sent a
    # completion but the driver didn't receive any MSI-X interrupt for admin cmd %s(%d) …",
    # efa_com_wait_and_process_admin_cq_polling "Wait for completion (polling) timeout": the
    # EFA device stopped answering its admin queue (the queue is marked not running: every
    # later verb fails), so NCCL/libfabric jobs over EFA fail until the device is reset. ENA's
    # own "Wait for completion (polling) timeout" (ena_com.c) is read only behind an efa_N
    # device name.
    sig(
        "efa_admin_timeout",
        r"\bThe device (?:didn't send any completion|sent a completion but the driver didn't "
        r"receive any MSI-X interrupt) for admin cmd \w+\(\d+\)"
        r"|\befa_\d+: Wait for completion \(polling\) timeout",
        ("didn", "polling"),
        Severity.ERROR,
        NET,
        "The AWS Elastic Fabric Adapter (EFA) stopped answering its admin queue: its driver "
        "marks the queue dead, and the RDMA jobs (NCCL, libfabric, MPI) over it fail.",
        "Check the instance's EFA at that time (an EC2 host event; the efa driver's version "
        "against the instance type) and reload the efa module or stop/start the instance.",
        50,
        formats=(
            Format(
                "The device didn't send any completion for admin cmd %s(%d) status %d (ctx 0x%p, "
                "sq producer: %d, sq consumer: %d, cq consumer: %d)",
                "drivers/infiniband/hw/efa/efa_com.c",
                "5.2-6.18 (as read)",
                "infiniband efa_0: ",
                args=("CREATE_QP", 1, 1, "00000000c0ffee00", 12, 11, 11),
            ),
            Format(
                "The device sent a completion but the driver didn't receive any MSI-X interrupt "
                "for admin cmd %s(%d) status %d (ctx: 0x%p, sq producer: %d, sq consumer: %d, "
                "cq consumer: %d)",
                "drivers/infiniband/hw/efa/efa_com.c",
                "5.2-6.18 (as read)",
                "infiniband efa_0: ",
                args=("REG_MR", 3, 2, "00000000c0ffee00", 12, 11, 11),
            ),
            Format(
                "Wait for completion (polling) timeout",
                "drivers/infiniband/hw/efa/efa_com.c",
                "5.2-6.18 (as read)",
                "infiniband efa_0: ",
            ),
        ),
    ),
)
