"""Failure chains: which event may cause which, as data, and the culprit order built on it.

The principle: **the primary is the earliest event of the last failure chain; what follows
from it never leads.** Events are linked by MAY_CAUSE (cause → effect). An event that another
event of the final window may have caused is not a root; the primary is the earliest root.
Three refinements, each a fact about how the kernel logs:

- Some effects are printed before their cause is noticed (`any_order`): the register reads
  of a GPU already gone from the bus fail before the driver says it is gone; Xid 45 names the
  Xid it follows ("caused by previous Xid N") however they are interleaved.
- Between events no relation links, the catalogue rank orders causes before effects (a
  machine check before the GPU, the GPU before storage, storage before the kernel's own
  reports): the rank is the coarse relation "an upstream stage may cause a downstream one".
  Every GPU driver signature shares one stage, so inside it the relations and time decide.
- The last chain: a recovery line (RECOVERED: a GPU reset that completed, an NFS server
  that answers again) closes the chain of its subsystem before it. When a failure follows
  it, what that subsystem logged before the recovery is history, and each of its tags'
  place is its first line after the recovery.

Family selectors (`family:gpu`) stand for the non-routine signatures of a subsystem and its
children (gpu.amdgpu, gpu.nvidia); a routine warning causes nothing unless a relation names
its tag. `mce_notice` is mcelog's bare "Machine check events logged" (no decoded record),
`mce_at_boot` a machine check whose records all come in a boot's first minutes,
`mce_unstamped` one whose lines carry no printk stamp, `task_dump` a hung_task event of
sched_show_task's task lines only (what a relation on hung_task names too).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kmsgd.catalogue.gpu import DEVICE_LOSS_TAGS
from kmsgd.catalogue.hardware import EARLY_US, MCE_NOTICE, MCELOG_HEADER
from kmsgd.catalogue.tags import Tag
from kmsgd.judge.timeline import Item, TagStats

GPU_STAGE = 30  # every GPU driver signature sorts here, then by relations and time


@dataclass(frozen=True, slots=True)
class Relation:
    """`cause` may cause `effect`: a tag, `prefix*` (a tag family) or `family:<subsystem>`."""

    cause: str
    effect: str
    why: str
    any_order: bool = False  # the effect may be printed before its cause
    # only when both name one device (a PCI address), or the cause names none and the effect
    # is printed under the cause's driver's name for its device (_same_device)
    same_device: bool = False


_LOST = tuple(sorted(DEVICE_LOSS_TAGS))
_STALLS = (Tag.HARD_LOCKUP, Tag.SOFT_LOCKUP, Tag.RCU_STALL, "workqueue_lockup", Tag.HUNG_TASK)
STORAGE_TRANSPORTS = (
    Tag.ISCSI_CONNECTION_ERROR,
    Tag.FC_LINK_DOWN,
    Tag.NFS_SERVER_NOT_RESPONDING,
    Tag.CEPH_CONNECTION_ERROR,
    Tag.CIFS_SERVER_NOT_RESPONDING,
    Tag.LUSTRE_NETWORK_ERROR,
)
CONTROLLER_FAULTS = (
    Tag.MEGARAID_FW_FAULT,
    Tag.MPT3SAS_IOC_FAULT,
    Tag.HPSA_CONTROLLER_LOCKUP,
    Tag.SMARTPQI_CONTROLLER_OFFLINE,
    Tag.AACRAID_ADAPTER_PANIC,
    Tag.MPI3MR_IOC_FAULT,
)
MAY_CAUSE: tuple[Relation, ...] = (
    # amdgpu and NVRM log each step of a failure as it happens (amdgpu_job.c, amdgpu_device.c
    # amdgpu_device_gpu_recover; NVIDIA's kernel_rc.c): what follows the first failure (MES
    # and SMU calls failing while a reset tears queues down, page faults of the resumed
    # context, a GSP timeout after an Xid) is its consequence
    Relation("family:gpu", "family:gpu", "a GPU driver logs its failure step by step"),
    # a GPU gone from the bus answers every register read with all-ones (the SMU's
    # "response:0xFFFFFFFF", "Failed to export SMU metrics table!")
    *(
        Relation(lost, "family:gpu", "a lost GPU fails every call", any_order=True)
        for lost in _LOST
    ),
    # amdgpu_job.c amdgpu_job_timedout calls amdgpu_device_gpu_recover: a ring timeout is
    # what starts the reset, wherever a cut or a retelling puts the reset's lines
    Relation(Tag.AMDGPU_RING_TIMEOUT, Tag.AMDGPU_GPU_RESET, "a ring timeout starts a reset", True),
    # gfx_vN_0.c priv_reg_irq/priv_inst_irq: the command processor stops on the faulting
    # command buffer, so the job never completes and its ring times out (4.x-5.x schedule
    # the reset from the interrupt as well)
    Relation(
        Tag.AMDGPU_ILLEGAL_REGISTER_ACCESS, Tag.AMDGPU_RING_TIMEOUT, "a killed job hangs its ring"
    ),
    Relation(Tag.AMDGPU_ILLEGAL_REGISTER_ACCESS, Tag.AMDGPU_GPU_RESET, "the fault resets the GPU"),
    # NVIDIA's Xid catalog: 45 "Preemptive cleanup, due to previous errors" (kernel_rc.c
    # appends " caused by previous Xid %d"), 154 "GPU recovery action changed"
    Relation("nvidia_xid_*", "nvidia_xid_45", "Xid 45 cleans up after an Xid", any_order=True),
    Relation("nvidia_xid_*", "nvidia_xid_154", "Xid 154 is the recovery an Xid needs", True),
    # NVIDIA's RPC path to GSP-RM (vgpu rpc.c, kernel_gsp.c): a GSP that stopped answering
    # fills its queue, so sends fail wherever the poll's timeout is printed; a request that
    # cannot reach GSP fails the init or re-init that sent it (osinit.c RmInitAdapter)
    Relation(
        Tag.NVIDIA_GSP_TIMEOUT, Tag.NVIDIA_GSP_RPC_FAILURE, "a stopped GSP takes no RPC", True
    ),
    Relation(Tag.NVIDIA_GSP_RPC_FAILURE, Tag.NVIDIA_INIT_FAILURE, "the init's RPCs to GSP fail"),
    # an RPC that failed returns its status to the resource server, whose NV_ASSERT_OK and
    # status asserts (rs_server.c, rs_client.c: "(status == NV_OK) || (status ==
    # NV_ERR_GPU_IN_FULLCHIP_RESET)") fire as each call unwinds, interleaved with the next
    # calls' send failures: the assertions are the failed RPCs' bookkeeping
    Relation(
        Tag.NVIDIA_GSP_RPC_FAILURE, Tag.NVIDIA_RM_ASSERTION, "a failed RPC's status asserted", True
    ),
    # a GSP task that crashed (Xid 120, "GSP task exception", the CrashCat report) is noticed
    # by kernel-RM only when kgspHealthCheck next runs (kernel_gsp.c, message_queue_cpu.c,
    # kernel_gsp_tu102.c: after draining GSP's events, while waiting for queue space, when
    # servicing GSP's halt interrupt): the assertions of the calls that ran against the dead
    # GSP meanwhile are printed before the report that names their cause
    Relation("nvidia_xid_120", Tag.NVIDIA_RM_ASSERTION, "a crashed GSP's calls asserted", True),
    # a GPU that needs a reset (NV_ERR_RESET_REQUIRED, 0x62) fails every allocation sent to
    # GSP-RM with that status, and the "GspRmAlloc failed: … status=0x00000062" line may come
    # before the assertion that names the status: the state leads the calls it fails
    Relation(
        Tag.NVIDIA_RESET_REQUIRED,
        Tag.NVIDIA_GSP_RPC_FAILURE,
        "a GPU needing a reset fails RPCs",
        True,
    ),
    # NVRM prints the status checks of the step that failed an RmInitAdapter as it unwinds,
    # before "RmInitAdapter failed! (0x62:0x51:…)", whose middle code is that status (0x51,
    # NV_ERR_NO_MEMORY): the allocation failures are how the init failed, one event
    Relation(Tag.NVIDIA_INIT_FAILURE, Tag.NVIDIA_NO_MEMORY, "the step that failed the init", True),
    # mcelog's notice says records were logged; EDAC, or (kernels before 4.x, whose thermal
    # interrupt logged through the MCE log) a throttling notice, says what they were
    Relation(Tag.EDAC, "mce_notice", "the EDAC decode of what mcelog logged", any_order=True),
    Relation(Tag.THERMAL_THROTTLE, "mce_notice", "a throttle logged through mcelog", True),
    # arch/x86/kernel/cpu/mce/core.c: at boot the kernel polls the banks and prints the
    # records the CPU kept across the reset, then "Machine check events logged": errors of
    # the boot before, not of this one
    Relation(Tag.MCE_LOGGED_AT_BOOT, "mce_at_boot", "the records a CPU kept from before", True),
    # without printk stamps (a journal's short format) time cannot say which records came at
    # boot; a polled uncorrected, context-corrupt record (catalogue/hardware.py) can: the
    # lines around it (the notice, its TSC and PROCESSOR lines) are its report
    Relation(Tag.MCE_LOGGED_AT_BOOT, "mce_unstamped", "a kept record's report", True),
    # the stall detectors (kernel/watchdog.c soft lockup and, from its NMI perf event
    # (kernel/watchdog_perf.c, watchdog_hld.c before 6.6), hard lockup, kernel/rcu/
    # tree_stall.h, kernel/workqueue.c wq_watchdog, kernel/hung_task.c) watch one stuck CPU
    # or timer from different sides: the first to report it leads the ones that report it
    # after (a CPU spinning with interrupts off is soft-locked first on the CPUs waiting for
    # it, then hard-locked on its own)
    *(
        Relation(cause, effect, "stall detectors report one stuck CPU")
        for cause in _STALLS
        for effect in _STALLS
        if cause != effect
    ),
    # a commit waits on the GPU work it displays (drm_atomic_helper.c waits on the commit's
    # fences, then on hw_done and flip_done, 10 s each): a GPU or display firmware that
    # stopped fails the flip, whichever of the two timeouts is printed first
    Relation("family:gpu", Tag.DRM_FLIP_TIMEOUT, "a page flip waits on the GPU", any_order=True),
    # nvidia-drm's own flip wait (nvidia-drm-crtc.c, 3 s) on the same GPU work
    Relation("family:gpu", Tag.NVIDIA_FLIP_TIMEOUT, "a page flip waits on the GPU", any_order=True),
    # i915's wait on another driver's fence (i915_sw_fence.c, a PRIME buffer's render): the
    # GPU that owns the fence stopped, whichever driver's line is printed first
    Relation("family:gpu", Tag.DMA_FENCE_TIMEOUT, "a fence wait waits on the GPU", any_order=True),
    # a device's DMA through the IOMMU after its own driver reported a failure: a GPU being
    # reset (amdgpu_device_gpu_recover) or hung still fetches through mappings its driver is
    # tearing down, and the IOMMU (drivers/iommu/amd/iommu.c, intel/dmar.c) logs the faults;
    # a fault from another device, or before any failure of its own, still leads
    Relation("family:gpu", Tag.IOMMU_FAULT, "the faults of a failing GPU", same_device=True),
    # kernel/hung_task.c: tasks in D state behind a stuck device or file system
    Relation("family:gpu", Tag.HUNG_TASK, "tasks wait on a hung GPU"),
    Relation("family:storage", Tag.HUNG_TASK, "tasks wait on a stuck disk"),
    Relation("family:fs", Tag.HUNG_TASK, "tasks wait on a stuck file system"),
    # a storage transport (an iSCSI connection, a Fibre Channel link, an NFS server, the
    # kernel Ceph client's monitors and OSDs) failing fails the devices and mounts behind it:
    # scsi_transport_iscsi.c and qla2xxx take the SCSI devices offline, RBD and CephFS
    # requests wait for the session, and their reads and writes, and the file system's, fail
    *(
        Relation(cause, effect, "a transport failure fails the storage behind it")
        for cause in STORAGE_TRANSPORTS
        for effect in (Tag.DISK_IO_ERROR, Tag.FS_ERROR, Tag.HUNG_TASK)
    ),
    # a storage controller's firmware that faults stops completing commands: they time out
    # and the SCSI error handler resets (scsi_error.c), and the reset's wait is where the
    # driver finds the fault (megaraid_sas_fusion.c megasas_wait_for_outstanding_fusion,
    # mpt3sas_base.c _base_fault_reset_work), so the fault may be printed after the reset
    *(
        Relation(fault, Tag.SCSI_HOST_RESET, "a controller's fault times its commands out", True)
        for fault in CONTROLLER_FAULTS
    ),
    # what the controller stopped completing fails: the error handler's last step takes the
    # disks offline (scsi_eh_offline_sdevs), their I/O and their file systems' fails
    *(
        Relation(cause, effect, "a stuck controller fails the disks behind it")
        for cause in (*CONTROLLER_FAULTS, Tag.SCSI_HOST_RESET)
        for effect in (Tag.DISK_IO_ERROR, Tag.FS_ERROR)
    ),
    # a disk's failed I/O is what the layers above it fail on: md (raid1.c/raid5.c md_error)
    # fails the member whose I/O failed, dm-snap.c invalidates a snapshot whose copy-on-write
    # I/O failed, and a file system aborts its journal or shuts down on the block layer's
    # errors (jbd2 "Detected IO errors", XFS "I/O Error Detected")
    *(
        Relation(Tag.DISK_IO_ERROR, effect, "the layers above a disk fail on its I/O")
        for effect in (Tag.MD_DISK_FAILURE, Tag.DM_SNAPSHOT_INVALIDATED, Tag.FS_ERROR)
    ),
    # a snapshot that was dropped fails every read of it (the block layer's errors on the
    # dm device) and of the file system mounted from it
    *(
        Relation(Tag.DM_SNAPSHOT_INVALIDATED, effect, "a dropped snapshot fails its reads")
        for effect in (Tag.DISK_IO_ERROR, Tag.FS_ERROR)
    ),
    # mlx5 health.c: a firmware whose health fails stops completing commands (cmd.c), and
    # the health poll may notice after the commands' timeouts; a NIC whose firmware stopped
    # (mlx5, bnxt) stops sending, and tasks wait in the driver for its commands
    Relation(
        Tag.MLX5_HEALTH_ERROR, Tag.MLX5_CMD_TIMEOUT, "a failed firmware answers nothing", True
    ),
    *(
        Relation(cause, effect, "a NIC's firmware stopped")
        for cause in (Tag.MLX5_HEALTH_ERROR, Tag.MLX5_CMD_TIMEOUT, Tag.BNXT_FW_FAULT)
        for effect in (Tag.NETDEV_TX_TIMEOUT, Tag.HUNG_TASK)
    ),
    # a bond's member is down when its NIC's link is (bond_main.c's miimon reads the
    # carrier the NIC driver dropped), and a NIC needing firmware it could not load fails
    # its probe (bnx2x, tg3, qed: the give-up is printed before the probe's failure)
    Relation(Tag.NIC_LINK_DOWN, Tag.BOND_LINK_DOWN, "a bond member is its NIC's link"),
    Relation(Tag.FIRMWARE_LOAD_FAILURE, Tag.NIC_PROBE_FAILURE, "a NIC without its firmware"),
    # an Intel GPU whose GuC file could not be read (intel_uc_fw.c's "fetch failed") fails
    # its GuC init after it where the GuC is required (Gen12+): the missing file is the cause
    Relation(Tag.FIRMWARE_LOAD_FAILURE, Tag.I915_INIT_FAILURE, "a GPU without its GuC file"),
    # a NIC whose device or firmware stopped (ENA's keep-alive, mlx4's commands) stops
    # sending: its transmit watchdog fires after
    *(
        Relation(cause, Tag.NETDEV_TX_TIMEOUT, "a NIC's firmware stopped")
        for cause in (Tag.ENA_KEEP_ALIVE_TIMEOUT, Tag.MLX4_FIRMWARE_ERROR)
    ),
    # a NIC gone from the bus (ixgbe_remove_adapter, igb/igc_rd32 detach it) or whose
    # firmware asserted (bnx2x, ixgbe) or could not be rebuilt (ice_rebuild) stops sending and
    # drops its carrier: its transmit watchdog, its link and the bond above it report after
    *(
        Relation(cause, effect, "a NIC that is gone or whose firmware stopped")
        for cause in (Tag.NIC_DEVICE_LOST, Tag.NIC_FIRMWARE_FAULT)
        for effect in (Tag.NETDEV_TX_TIMEOUT, Tag.NIC_LINK_DOWN, Tag.BOND_LINK_DOWN)
    ),
    # drivers/virtio/virtio_ring.c BAD_RING marks the queue broken: a virtio NIC's transmit
    # queue stops (its watchdog fires after), a virtio disk's requests never complete (the
    # tasks waiting on them hang); netvsc's refused sends and MANA's silent hardware channel
    # stop the guest NIC the same way
    *(
        Relation(Tag.VIRTIO_RING_BROKEN, effect, "a broken virtqueue stops its device")
        for effect in (Tag.NETDEV_TX_TIMEOUT, Tag.HUNG_TASK)
    ),
    # drivers/pci/pci.c pci_raw_set_power_state: a controller already off the link (an NVMe
    # reading all-ones) cannot leave D3cold when its reset resumes it
    Relation(Tag.NVME_TIMEOUT, Tag.PCI_D3COLD_RESUME_FAILURE, "a controller already gone"),
    *(
        Relation(cause, Tag.NETDEV_TX_TIMEOUT, "a guest NIC whose host channel failed")
        for cause in (Tag.NETVSC_SEND_FAILURE, Tag.MANA_HWC_TIMEOUT)
    ),
    # net/core/dev.c netdev_wait_allrefs_any: the unregister that waits for a leaked
    # reference holds every later unregister (and rtnl users behind the netns teardown)
    Relation(Tag.NETDEV_UNREGISTER_HANG, Tag.HUNG_TASK, "tasks wait on a stuck unregister"),
    # an IOMMU that stopped completing commands is spun on by every CPU that maps or unmaps
    # DMA (amd/iommu.c wait_on_sem, intel/dmar.c qi_submit_sync with interrupts off,
    # arm-smmu-v3.c arm_smmu_cmdq_poll_until_sync): the stall detectors report those CPUs
    *(
        Relation(Tag.IOMMU_HARDWARE_ERROR, effect, "CPUs spin on an IOMMU that stopped")
        for effect in _STALLS
    ),
    # kernel/smp.c: a CPU that sends a cross-CPU call (a TLB flush, smp_call_function_many)
    # spins in csd_lock_wait with preemption off until its target runs it; the CSD report
    # (csd_lock_timeout=5 s) comes before that waiter's soft lockup (20 s) and the RCU
    # stall and hung tasks it holds up. A CPU stuck with interrupts off (the NMI watchdog's
    # hard lockup) is why its IPIs are never answered
    *(
        Relation(Tag.CSD_LOCK_TIMEOUT, effect, "the IPI's sender spins waiting for it")
        for effect in _STALLS
        if effect != Tag.HARD_LOCKUP
    ),
    Relation(Tag.HARD_LOCKUP, Tag.CSD_LOCK_TIMEOUT, "a CPU with interrupts off answers no IPI"),
    # a device gone from the bus (a NIC detached, a GPU fallen off) never answers the
    # Device-TLB (ATS) invalidations the IOMMU sends it: VT-d reports the invalidation
    # time-out (dmar.c qi_check_fault) and SMMUv3 its CMD_SYNC timeout after the loss
    *(
        Relation(cause, Tag.IOMMU_HARDWARE_ERROR, "a lost device answers no invalidation")
        for cause in (Tag.NIC_DEVICE_LOST, *_LOST)
    ),
    # a device that a failing driver resets (vfio-pci's FLR of a hung passed-through GPU, a
    # driver's bus reset in its recovery) may never answer again: the driver's failure leads
    Relation("family:gpu", Tag.PCI_RESET_TIMEOUT, "a failing GPU is reset", same_device=True),
    # dm-integrity/dm-crypt fail the read whose checksum does not match (EILSEQ): the file
    # system above it fails on that read, md fails the member it came from
    *(
        Relation(Tag.DM_INTEGRITY_ERROR, effect, "a read that failed its checksum fails")
        for effect in (Tag.FS_ERROR, Tag.MD_DISK_FAILURE)
    ),
    # fs/nfs/nfs4state.c: a server that stopped answering (sunrpc's "not responding") is the
    # one whose lease the client then cannot renew, nor its opens and locks reclaim
    Relation(
        Tag.NFS_SERVER_NOT_RESPONDING,
        Tag.NFS_STATE_RECOVERY_FAILURE,
        "an unreachable server's state expires",
    ),
    # mm/page_alloc.c: allocations that fail (warn_alloc, 2.4's __alloc_pages) are the memory
    # running out; when the OOM killer (mm/oom_kill.c) runs after them, it is the end of the
    # same exhaustion, and its first sign is the first failed allocation
    Relation(Tag.PAGE_ALLOCATION_FAILURE, Tag.OOM_KILL, "memory runs out before the OOM kill"),
    # drivers/nvme/host/pci.c nvme_timeout resets the controller it timed out on
    Relation(Tag.NVME_TIMEOUT, Tag.NVME_RESET, "a command timeout resets the controller"),
    # pci.c nvme_reset_work (probe's first run of it, before 6.2) ends a failed reset in
    # "Removing after probe failure", and re-enabling the controller in it waits for ready
    # ("aborting initialisation"): after a timeout or a reset they are how that reset failed;
    # alone, the controller never came up at probe
    *(
        Relation(cause, Tag.NVME_PROBE_FAILURE, "a reset that fails removes the controller")
        for cause in (Tag.NVME_TIMEOUT, Tag.NVME_RESET)
    ),
    # drivers/acpi/apei/ghes.c: a firmware-first PCIe error is one record, its event's
    # "event severity: fatal" line before the section that names the PCIe error
    # (catalogue/indirect.py CPER_SECTIONS), and ghes_proc's "Fatal hardware error!" panic
    # after it: the record's header and panic are the PCIe error's report
    *(
        Relation(aer, Tag.GHES_HARDWARE_ERROR, "the firmware's record of a PCIe error", True)
        for aer in (Tag.AER_FATAL, Tag.AER_NONFATAL)
    ),
    # drivers/pci/pcie/err.c pcie_do_recovery: an AER or DPC error is what the recovery runs
    # for; its reset_link waits for the link to train again (pci.c
    # pci_bridge_wait_for_secondary_bus, dpc.c dpc_reset_link: "Data Link Layer Link Active
    # not set"), and a link that does not come back fails the recovery ("device recovery
    # failed")
    *(
        Relation(cause, Tag.AER_RECOVERY_FAILURE, "the recovery an error starts fails")
        for cause in (
            Tag.AER_FATAL,
            Tag.AER_NONFATAL,
            Tag.PCIE_LINK_DOWN,
            Tag.PCIE_LINK_TRAINING_FAILURE,
        )
    ),
    *(
        Relation(cause, Tag.PCIE_LINK_TRAINING_FAILURE, "the reset after an error retrains")
        for cause in (Tag.AER_FATAL, Tag.AER_NONFATAL, Tag.PCIE_LINK_DOWN)
    ),
    # pci.c pci_bridge_wait_for_secondary_bus: below a link that did not train the device's
    # config space never answers, so its power-up ("Unable to change power state from D3cold
    # to D0, device inaccessible") or reset wait ("not ready %dms after %s; giving up") fails
    *(
        Relation(Tag.PCIE_LINK_TRAINING_FAILURE, effect, "no device answers behind a dead link")
        for effect in (Tag.PCI_D3COLD_RESUME_FAILURE, Tag.PCI_RESET_TIMEOUT)
    ),
    # kernel/panic.c: an oops, BUG or warning with panic_on_oops/panic_on_warn ends in panic
    *(
        Relation(cause, Tag.KERNEL_PANIC, "the panic that ends a report")
        for cause in (Tag.OOPS, Tag.KERNEL_BUG, Tag.GENERAL_PROTECTION_FAULT, Tag.KERNEL_WARNING)
    ),
    *(
        Relation(cause, Tag.KERNEL_PANIC, "a watchdog set to panic")
        for cause in (Tag.HARD_LOCKUP, Tag.SOFT_LOCKUP, Tag.RCU_STALL, Tag.HUNG_TASK)
    ),
    # kernel/exit.c do_exit (make_task_dead 5.17+): a task killed by an oops in atomic context
    # exits with its preempt count raised or interrupts off ("note: %s[%d] exited with
    # preempt_count %d"), and its exit path's might_sleep and schedule() report that
    *(
        Relation(cause, effect, "an oops in atomic context exits in atomic context")
        for cause in (Tag.OOPS, Tag.KERNEL_BUG, Tag.GENERAL_PROTECTION_FAULT)
        for effect in (Tag.SCHEDULING_WHILE_ATOMIC, Tag.SLEEP_IN_ATOMIC)
    ),
    # kernel/sched/core.c: __might_resched warns at the call that may sleep; if it does
    # sleep, __schedule_bug reports the schedule itself
    Relation(Tag.SLEEP_IN_ATOMIC, Tag.SCHEDULING_WHILE_ATOMIC, "the warned sleep happened"),
    # code that runs with preemption or softirqs off (a leaked spin_lock_bh, a probe called
    # under local_bh_disable) is reported when it sleeps (__schedule_bug, __might_resched)
    # and then by the BUG_ON of a call it may not make there: mm/vmalloc.c vunmap's
    # BUG_ON(in_interrupt()) (iounmap, 2.6.x-5.x), vfree's; the atomic report comes first
    # and the BUG after it is the same code (the reverse, an oops's exit in atomic context,
    # is above: the earlier of the two leads)
    *(
        Relation(atomic, Tag.KERNEL_BUG, "code in atomic context trips a BUG_ON(in_interrupt())")
        for atomic in (Tag.SCHEDULING_WHILE_ATOMIC, Tag.SLEEP_IN_ATOMIC)
    ),
    # lib/bug.c report_bug prints "kernel BUG at %s:%u!" and the trap's die() then reports
    # the same BUG as an oops: arm64's "Internal error: Oops - BUG: %08x" (bug_handler, die),
    # x86's "invalid opcode: 0000 [#%d]" (do_error_trap), riscv's "Kernel BUG [#%d]"
    Relation(Tag.KERNEL_BUG, Tag.OOPS, "the trap's die() reports the BUG as an oops"),
    # the memory-corruption detectors (mm/kasan, mm/kfence, mm/slub.c, lib/list_debug.c) report
    # and return: the corrupted pointer they saw is then dereferenced, and x86 reports that
    # access as a general protection fault (a non-canonical poison value, KASAN's decoded
    # "KASAN: null-ptr-deref in range"); the detector's report, earlier, is its cause
    Relation(Tag.KERNEL_BUG, Tag.GENERAL_PROTECTION_FAULT, "the fault on the corrupted memory"),
    # __schedule_bug: "if (panic_on_warn) panic("scheduling while atomic")"
    Relation(Tag.SCHEDULING_WHILE_ATOMIC, Tag.KERNEL_PANIC, "panic_on_warn panics"),
    # mm/page_alloc.c bad_page: a page found corrupted is one whose former user still holds
    # it: that user's next access faults, and the oops after it is the corruption's; an oops
    # before it killed a task mid-update, whose pages are then freed in a bad state: the
    # earlier of the two leads
    *(
        Relation(Tag.BAD_PAGE_STATE, oops, "a corrupted page faults its user")
        for oops in (Tag.OOPS, Tag.KERNEL_BUG, Tag.GENERAL_PROTECTION_FAULT)
    ),
    *(
        Relation(oops, Tag.BAD_PAGE_STATE, "a task killed mid-update frees bad pages")
        for oops in (Tag.OOPS, Tag.KERNEL_BUG, Tag.GENERAL_PROTECTION_FAULT)
    ),
    # drivers/watchdog/hpwdt.c hpwdt_pretimeout calls nmi_panic on the NMI it claims
    Relation(Tag.HPWDT_NMI, Tag.KERNEL_PANIC, "the iLO watchdog's NMI handler panics"),
    # drivers/usb/core/hcd.c usb_hc_died disconnects every device behind a dead host
    # controller: a USB disk's I/O fails, its file system and its ZFS pool with it, and the
    # tasks writing there wait
    *(
        Relation(Tag.XHCI_HOST_DEAD, effect, "a dead USB host disconnects its disks")
        for effect in (
            Tag.DISK_IO_ERROR,
            Tag.FS_ERROR,
            Tag.ZFS_POOL_SUSPENDED,
            Tag.HUNG_TASK,
        )
    ),
    # OpenZFS zio.c: a pool is suspended after its vdevs' I/O failed (vdev_disk.c's "zio
    # pool=… error=" lines and the block layer's errors), and the failure may be reported
    # after the first suspension line of a pool with several vdevs; with failmode=panic,
    # and spl_panic_halt=1 for an assertion, the kernel panics with their message
    Relation(Tag.DISK_IO_ERROR, Tag.ZFS_POOL_SUSPENDED, "a pool suspends on failed I/O", True),
    Relation(Tag.ZFS_POOL_SUSPENDED, Tag.KERNEL_PANIC, "failmode=panic panics the kernel"),
    Relation(Tag.ZFS_PANIC, Tag.KERNEL_PANIC, "spl_panic_halt panics the kernel"),
    # kernel/power/process.c try_to_freeze_tasks: when the freezer gives up it dumps each
    # task refusing to freeze with sched_show_task (6.x, pm_debug_messages or by default for
    # user space): a D-state task line the hung-task report prints too, here the freeze's own
    # (`task_dump`: a hung_task event of such lines only; a hung-task report's "INFO: task
    # … blocked for more than" after a failed freeze is the stuck task that failed it, and
    # leads)
    Relation(Tag.SUSPEND_FAILURE, "task_dump", "the freezer dumps the tasks it could not freeze"),
    # kernel/power/suspend.c suspend_devices_and_enter: a suspend a driver refused (or a wake
    # event aborted) is undone at once, dpm_resume_end resuming every device already
    # suspended: amdgpu's resume then failing (amdgpu_device.c amdgpu_device_ip_resume_phase2
    # "resume of IP block <smu> failed", amdgpu_device_resume "amdgpu_device_ip_resume
    # failed") is on the path the aborted suspend started. Only in time order: the GPU's own
    # suspend error before the PM core's line is the refusal, and leads
    *(
        Relation(Tag.SUSPEND_FAILURE, effect, "an aborted suspend resumes the GPU it suspended")
        for effect in (Tag.AMDGPU_SMU_TIMEOUT, Tag.AMDGPU_INIT_FAILURE)
    ),
    # qla2xxx qla_os.c: the error handler's bus reset is a loop reset (qla2x00_loop_reset, a
    # LIP) and its host reset restarts the ISP (qla2x00_abort_isp): the FC loop goes down
    # and comes back ("LOOP DOWN detected", "LOOP UP detected") after the reset
    Relation(Tag.SCSI_HOST_RESET, Tag.FC_LINK_DOWN, "a loop or adapter reset takes the loop down"),
    # Lustre: a server thread waiting on a peer that stopped answering (an RPC it forwards,
    # a lock callback to an unreachable client) is what its watchdog finds inactive
    Relation(
        Tag.LUSTRE_NETWORK_ERROR,
        Tag.LUSTRE_SERVICE_THREAD_INACTIVE,
        "a service thread waits on an unreachable peer",
    ),
    # drivers/watchdog/softdog.c: the pinger of /dev/watchdog stops when the box or its
    # userspace is stuck (a stall detector's report, a hung task, memory running out), and
    # the watchdog then resets or (soft_panic=1) panics the box
    *(
        Relation(cause, Tag.WATCHDOG_EXPIRED, "a stuck box stops pinging its watchdog")
        for cause in (*_STALLS, Tag.OOM_KILL)
    ),
    Relation(Tag.WATCHDOG_EXPIRED, Tag.KERNEL_PANIC, "softdog's soft_panic panics"),
    # kernel/time/clocksource.c: a CPU held off past the watchdog interval (a stall, an
    # NMI storm, a vCPU not scheduled) reads a skewed TSC, and the clock is marked unstable
    *(
        Relation(cause, Tag.CLOCKSOURCE_UNSTABLE, "a stalled CPU skews its clock", True)
        for cause in _STALLS
    ),
    # mm/memory-failure.c handles the page that a machine check (arch/x86/kernel/cpu/mce/
    # core.c kill_me_maybe, uc_decode_notifier), a GHES record (ghes.c
    # ghes_handle_memory_failure) or the EDAC decode of either reported: its recovery and
    # the processes it kills are the memory error's; mce_log's "Machine check events
    # logged" and the EDAC decode come from deferred work, after the handling may be printed
    *(
        Relation(cause, Tag.MEMORY_FAILURE, "the kernel's handling of a poisoned page", True)
        for cause in (Tag.MCE, Tag.GHES_HARDWARE_ERROR, Tag.EDAC)
    ),
    # arch/arm64/kernel/traps.c arm64_serror_panic: pr_crit, then nmi_panic
    Relation(Tag.ARM64_SERROR, Tag.KERNEL_PANIC, "an SError panics the kernel"),
    # mm/page_io.c: swap I/O is block I/O; a failing swap disk fails it
    Relation(Tag.DISK_IO_ERROR, Tag.SWAP_IO_ERROR, "swap I/O fails on its disk's errors", True),
    # drivers/thermal/thermal_core.c handle_critical_trips: a zone past its critical trip
    # calls hw_protection_shutdown (kernel/reboot.c) with "Temperature too high"
    Relation(Tag.THERMAL_CRITICAL, Tag.HW_PROTECTION_SHUTDOWN, "a critical trip shuts down"),
    # drivers/tty/sysrq.c: an operator or a watchdog script resets a box it finds stuck
    # (the stall detectors' reports, memory run out): what it reacted to leads
    *(
        Relation(cause, Tag.SYSRQ_RESET, "a stuck box is reset by hand")
        for cause in (*_STALLS, Tag.OOM_KILL)
    ),
)

# lines that close a chain: the failure before them was recovered from
RECOVERED: tuple[tuple[str, re.Pattern[str]], ...] = (
    # amdgpu_device.c amdgpu_device_gpu_recover: "GPU reset(%d) succeeded!" (4.x-5.x),
    # "GPU reset end with ret = %d" (6.x)
    ("gpu.amdgpu", re.compile(r"GPU reset\(\d+\) succeeded|GPU reset end with ret = 0\b")),
    # net/sunrpc/clnt.c call_decode/rpc_decode_header: "%s: server %s OK" once a server that
    # was "not responding" answers again
    ("storage.net", re.compile(r"^\w+: server \S+ OK$")),
)


def chain_tag(t: TagStats) -> str:
    """The name relations know an event by: its tag, `mce_notice` for mcelog's notice,
    `mce_at_boot` for machine-check records all printed in the first minutes of a boot,
    `task_dump` for a hung_task event of bare task lines."""
    if t.tag == Tag.MCE and all(_mce_notice(i) for i in (t.first, t.last)):
        return "mce_notice"
    if t.tag == Tag.KERNEL_BUG and "BUG: workqueue lockup" in t.first.line.message:
        return "workqueue_lockup"
    if (
        t.tag == Tag.MCE
        and (t.last.line.ts_usec if t.last.line.ts_usec is not None else EARLY_US) < EARLY_US
    ):
        return "mce_at_boot"
    if t.tag == Tag.MCE and t.first.line.ts_usec is None and t.last.line.ts_usec is None:
        return "mce_unstamped"
    if t.tag == Tag.HUNG_TASK and all(_task_line(i) for i in (t.first, t.last)):
        return "task_dump"
    return t.tag


def _task_line(i: Item) -> bool:
    """kernel/sched/core.c sched_show_task's "task:%-15.15s state:%c …" line, which the
    hung-task report prints and so do the freezer (kernel/power/process.c) and SysRq-w."""
    return i.line.message.lstrip().startswith("task:")


def _mce_notice(i: Item) -> bool:
    """A line that says a record was logged, not what it holds: the kernel's notice, or
    mcelog's header of each record ("Hardware event. This is not a software error.")."""
    text = i.line.message
    return (MCE_NOTICE in text and "CPU" not in text) or text.endswith(MCELOG_HEADER)


def selects(selector: str, t: TagStats) -> bool:
    sig = t.hit.signature
    if selector.startswith("family:"):
        fam = selector[7:]
        return not sig.routine and (sig.subsystem == fam or sig.subsystem.startswith(fam + "."))
    if selector.endswith("*"):
        return t.tag.startswith(selector[:-1])
    name = chain_tag(t)
    return name == selector or (name == "task_dump" and selector == Tag.HUNG_TASK)


Key = tuple[str, str]  # (tag, device): one event of the final window


def _same_device(cause: TagStats, effect: TagStats) -> bool:
    """Whether both events are one device's: both name it, or the cause names none (a DRM
    driver's DRM_ERROR without its device, as amdgpu_job_timedout before 5.x's dev_err) and
    the effect is printed under the cause's driver's name for its device ("amdgpu
    0000:0d:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT …]": the IOMMU fault of a device that
    driver holds)."""
    if cause.device:
        return cause.device == effect.device
    driver = cause.hit.signature.subsystem.rpartition(".")[2]
    return bool(effect.device) and effect.first.line.message.startswith(
        f"{driver} {effect.device}:"
    )


def _relation(cause: TagStats, effect: TagStats, pos: dict[Key, int]) -> Relation | None:
    """The relation by which `cause` may have caused `effect`, order respected; one that
    holds in any order first."""
    found = None
    for r in MAY_CAUSE:
        if r.same_device and not _same_device(cause, effect):
            continue
        if selects(r.cause, cause) and selects(r.effect, effect):
            if r.any_order:
                return r
            if found is None and pos[cause.tag, cause.device] <= pos[effect.tag, effect.device]:
                found = r
    return found


def caused_by(
    effect: TagStats, events: Sequence[TagStats], pos: dict[Key, int] | None = None
) -> TagStats | None:
    """An event of `events` that may have caused `effect` (`pos`: where each event starts,
    by default its first line). When two may have caused each other, one that holds in any
    order beats one that holds only by time (a lost GPU leads the GPU errors printed before
    it; Xid 45 follows the Xid it names); of two alike, the earlier leads."""
    pos = pos or {(t.tag, t.device): t.first.pos for t in (effect, *events)}
    for c in events:
        if c is effect:
            continue
        r = _relation(c, effect, pos)
        if r is None:
            continue
        back = _relation(effect, c, pos)
        if back is not None and (
            back.any_order > r.any_order
            or (back.any_order == r.any_order and _at(effect, pos) < _at(c, pos))
        ):
            continue  # each may have caused the other: the stronger relation, then time
        return c
    return None


def _at(t: TagStats, pos: dict[Key, int]) -> tuple[int, bool, str]:
    """Where an event starts; on one line, a driver's numbered report (an Xid, its tag made
    from the line) names the event before a tag that reads its words."""
    return pos[t.tag, t.device], t.tag == t.hit.signature.tag, t.tag


def stage(t: TagStats) -> int:
    sig = t.hit.signature
    if sig.subsystem.startswith("gpu") and not sig.routine:
        return min(sig.rank, GPU_STAGE)
    return sig.rank


def last_chain(
    tail: Sequence[Item], events: Sequence[TagStats]
) -> tuple[dict[str, int], str] | None:
    """Where the last chain starts: tag → its first position after the last recovery line
    that a failure follows, with the subsystem that recovered (a recovery closes its own
    chain: an NFS server answering again says nothing of a GPU), or None when no recovery
    closes an earlier chain."""
    serious = {t.tag for t in events if not t.hit.signature.routine}
    after: dict[str, int] = {}
    for item in reversed(tail):
        sub = next((s for s, rx in RECOVERED if rx.search(item.line.message)), None)
        if sub is not None:
            if after.keys() & serious:
                return after, sub
            continue
        for tag in item.tags:
            after[tag] = item.pos
    return None


def _of(t: TagStats, subsystem: str) -> bool:
    s = t.hit.signature.subsystem
    return s == subsystem or s.startswith(subsystem + ".")


def primary(events: Sequence[TagStats], tail: Sequence[Item]) -> TagStats | None:
    """The culprit among `events` (the blamable events of the final window): the earliest
    root of the last chain, by stage then time; a routine warning only when no root is more."""
    if not events:
        return None
    pos = {(t.tag, t.device): t.first.pos for t in events}
    chain = last_chain(tail, events)
    if chain is not None and any(t.tag in chain[0] for t in events):
        start, sub = chain
        events = [t for t in events if t.tag in start or not _of(t, sub)]
        pos = {(t.tag, t.device): start.get(t.tag, pos[t.tag, t.device]) for t in events}
    roots = [t for t in events if caused_by(t, events, pos) is None] or list(events)
    roots.sort(key=lambda t: (stage(t), pos[t.tag, t.device]))
    return next((t for t in roots if not t.hit.signature.routine), roots[0])
