"""amdgpu wordings from the AMD source sweep (drivers/gpu/drm/amd/, 4.4-6.18) that the other
GPU modules did not catalogue, for a GPU that is lost or never comes up: the GPU's thermal
shutdown (HW/SW CTF), the RAS bad-page table over its threshold (the GPU is retired), the
video engines (UVD, VCE, VCN) whose firmware does not start, the SR-IOV virtual function's
mailbox, RLCG and FLR handshakes with the host, the VBIOS that cannot be found, the PSP and
RLC firmware that do not start, and KFD's 4.x refusal of the device. Hangs and resets are
gpu_amd_reset.py's.

Each entry's tag, where it adds wording to another module's tag, keeps that tag's meaning
(its first entry's): the next step says "See <tag>".
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, MatchInput, Severity, Signature, sig

_PCI = DeviceKind.PCI
AMDGPU = "gpu.amdgpu"
_AMD = "drivers/gpu/drm/amd/amdgpu/"
_PM = "drivers/gpu/drm/amd/pm/"
_DEV = "amdgpu 0000:03:00.0: amdgpu: "  # dev_printk with amdgpu's dev_fmt "amdgpu: " (5.x+)
_DEV_NOFMT = "amdgpu 0000:03:00.0: "  # dev_printk where dev_fmt is not set (4.x, pm/)


def _drm(func: str, module: str = "amdgpu") -> str:
    """DRM_ERROR's prefix: "[drm:<function> [<module>]] *ERROR* "."""
    return f"[drm:{func} [{module}]] *ERROR* "


def _amdgpu_line(m: object, i: MatchInput) -> bool:
    # the driver names itself: dev_printk's "amdgpu 0000:03:00.0:", DRM_ERROR's
    # "[drm:… [amdgpu]]", or pr_fmt's "amdgpu: "; radeon prints some of the same words
    return "amdgpu" in i.text


AMD_SWEEP_SIGNATURES: tuple[Signature, ...] = (
    # pm/swsmu/smu11/smu_v11_0.c smu_v11_0_irq_process, smu13/smu_v13_0.c (and smu14):
    # dev_emerg "ERROR: GPU HW Critical Temperature Fault(aka CTF) detected!" then "ERROR:
    # System is going to shutdown due to GPU HW CTF!" and orderly_poweroff(true); the software
    # threshold (pm/swsmu/amdgpu_smu.c smu_swctf_delayed_work_handler 6.5+, powerplay
    # amd_powerplay.c pp_swctf_delayed_work_handler, hwmgr/smu_helper.c phm_irq_process)
    # prints "...(SW CTF) detected!" (hardware.py's wording) then "System is going to shutdown
    # due to GPU SW CTF!" ("due to SW CTF!" before 5.9). The box powers itself off.
    sig(
        "thermal_critical",
        r"\bSystem is going to shutdown due to (?:GPU )?(?:SW|HW) CTF!"
        r"|\bGPU HW Critical Temperature Fault\(aka CTF\) detected!",
        ("CTF",),
        Severity.CRITICAL,
        "thermal",
        "The GPU reached its critical (shutdown) temperature: amdgpu powers the system off.",
        "See thermal_critical in hardware.py.",
        14,
        device_kind=_PCI,
        formats=(
            Format(
                "ERROR: GPU HW Critical Temperature Fault(aka CTF) detected!",
                _PM + "swsmu/smu11/smu_v11_0.c",
                "5.15-6.18",
                _DEV,
            ),
            Format(
                "ERROR: System is going to shutdown due to GPU HW CTF!",
                _PM + "swsmu/smu13/smu_v13_0.c",
                "5.15-6.18",
                _DEV,
            ),
            Format(
                "ERROR: System is going to shutdown due to GPU SW CTF!",
                _PM + "swsmu/amdgpu_smu.c",
                "6.5-6.18",
                _DEV,
            ),
            Format(
                "System is going to shutdown due to SW CTF!",
                _PM + "powerplay/hwmgr/smu_helper.c",
                "5.4",
                _DEV_NOFMT,
            ),
        ),
    ),
    # amdgpu_ras_eeprom.c amdgpu_ras_eeprom_init (5.15-6.9): the bad-page records kept in the
    # board's EEPROM exceed amdgpu.bad_page_threshold: dev_err "RAS records:%d exceed
    # threshold:%d, GPU will not be initialized. Replace this GPU or increase the threshold"
    # (5.15-6.6; "GPU will not be initialized. Replace this GPU or increase the threshold."
    # alone in 5.11-5.14), "RAS records:%d exceed threshold:%d" (6.7-6.9, then the -1/-2
    # overrides); amdgpu_ras_eeprom_check (6.10-6.18) dev_warn "RAS records:%d exceed
    # threshold:%d" with the GPU marked for replacement (ras->is_rma) unless the threshold is
    # -1/-2. "GPU will be initialized due to bad_page_threshold = -1." and "Please consult
    # AMD Service Action Guide" follow it and tag nothing.
    sig(
        "amdgpu_ras_bad_page_threshold",
        r"\bRAS records:\d+ exceed threshold:\d+"
        r"|\bGPU will not be initialized\. Replace this GPU or increase the threshold",
        ("exceed", "Replace"),
        Severity.ERROR,
        AMDGPU,
        "The GPU's memory has retired more bad pages (uncorrectable ECC errors, kept in the "
        "board's RAS EEPROM) than amdgpu's bad-page threshold: the driver refuses to "
        "initialise the GPU, or (6.10+) marks it for replacement.",
        "The card is due for replacement (AMD's Service Action Guide): have it RMA'd. "
        "amdgpu.bad_page_threshold=-1 (or -2) brings it up anyway, knowingly, for diagnosis.",
        29,
        device_kind=_PCI,
        check=_amdgpu_line,
        formats=(
            Format(
                "RAS records:%d exceed threshold:%d, GPU will not be initialized. Replace "
                "this GPU or increase the threshold",
                _AMD + "amdgpu_ras_eeprom.c",
                "5.15-6.6",
                _DEV,
                args=(312, 256),
            ),
            Format(
                "GPU will not be initialized. Replace this GPU or increase the threshold.",
                _AMD + "amdgpu_ras_eeprom.c",
                "5.11-5.14",
                _DEV,
            ),
            Format(
                "RAS records:%d exceed threshold:%d",
                _AMD + "amdgpu_ras_eeprom.c",
                "6.7-6.18",
                _DEV,
                args=(312, 256),
            ),
        ),
    ),
    # uvd_v{4_2,5_0,6_0,7_0}.c uvd_vN_start, vce_v{2_0,3_0,4_0}.c vce_vN_start (via
    # vce_v3_0_firmware_loaded), vcn_v1_0.c vcn_v1_0_start_spg_mode, vcn_v2_0.c, vcn_v2_5.c
    # ("VCN[%d] decode ..."): DRM_ERROR "<engine> not responding, trying to reset the
    # VCPU!!!" on each of up to 10 tries (routine if a later try answers), then "<engine> not
    # responding, giving up!!!": the engine's firmware never reported ready, its hw_init or
    # resume fails (video decode/encode is gone until the next boot), and on 4.x-5.x an
    # ungate at first use fails the ring test behind it. radeon's uvd_v1_0.c/vce_v1_0.c say
    # the same: the line must be amdgpu's.
    sig(
        "amdgpu_video_engine_failure",
        r"\b(?:VCN(?:\[\d+\])? decode|UVD|VCE) not responding, giving up!!!",
        ("giving",),
        Severity.ERROR,
        AMDGPU,
        "A video engine of the GPU (UVD, VCE or VCN) did not start: its firmware never "
        "answered after the driver's resets, so video decode/encode (and the resume or init "
        "that started it) fails.",
        "Check the engine's firmware in linux-firmware against the kernel (amdgpu/*_uvd.bin, "
        "*_vce.bin, *_vcn.bin); after a suspend, try without runtime power gating "
        "(amdgpu.runpm=0); the ring-test and init failures after it are its consequences.",
        36,
        device_kind=_PCI,
        check=_amdgpu_line,
        formats=(
            Format(
                "UVD not responding, giving up!!!",
                _AMD + "uvd_v6_0.c",
                "4.4-6.18",
                _drm("uvd_v6_0_start"),
            ),
            Format(
                "VCE not responding, giving up!!!",
                _AMD + "vce_v3_0.c",
                "4.4-6.18",
                _drm("vce_v3_0_start"),
            ),
            Format(
                "VCN decode not responding, giving up!!!",
                _AMD + "vcn_v1_0.c",
                "4.19-6.18",
                _drm("vcn_v1_0_start_spg_mode"),
            ),
            Format(
                "VCN[%d] decode not responding, giving up!!!",
                _AMD + "vcn_v2_5.c",
                "5.4-5.10",
                _drm("vcn_v2_5_start"),
                args=(1,),
            ),
        ),
    ),
    # mxgpu_ai.c xgpu_ai_poll_ack / xgpu_ai_poll_msg (4.15-6.18, pr_err with pr_fmt "amdgpu: "
    # then dev_err), mxgpu_nv.c (5.9-6.18, "... msec \n" with a space before 6.x's fix):
    # "Doesn't get TRN_MSG_ACK from pf in %d msec" and "Doesn't get msg:%d from pf,
    # error=%d": the host's physical-function driver did not acknowledge or answer a request
    # of this virtual function (full-GPU access for init, reset, FLR); amdgpu_virt.c
    # amdgpu_virt_rlcg_reg_rw (5.18-6.18): dev_err "timeout: rlcg faled to program reg:
    # 0x%05x" ("failed" from 6.9), "register is not in range, rlcg failed to program reg:
    # 0x%05x", "unknown error type, rlcg failed to program reg: 0x%05x": the VF's register
    # writes through the RLC firmware the host owns did not complete; mxgpu_ai.c/mxgpu_nv.c
    # xgpu_*_mailbox_flr_work (6.0-6.8, dev_warn; dev_dbg after) "waiting
    # IDH_FLR_NOTIFICATION_CMPL timeout": the host never said the function-level reset it
    # announced was done
    sig(
        "amdgpu_vf_mailbox_error",
        r"\bDoesn't get (?:TRN_MSG_ACK|msg:\d+) from pf\b|\brlcg fai?led to program reg: 0x"
        r"|\bwaiting IDH_FLR_NOTIFICATION_CMPL timeout\b",
        ("Doesn", "rlcg", "IDH_FLR_NOTIFICATION_CMPL"),
        Severity.ERROR,
        AMDGPU,
        "amdgpu, driving an SR-IOV virtual function, got no answer from the host's "
        "physical-function driver (mailbox or RLCG register access).",
        "See amdgpu_vf_mailbox_error in gpu_faults.py.",
        34,
        device_kind=_PCI,
        formats=(
            Format(
                "Doesn't get TRN_MSG_ACK from pf in %d msec",
                _AMD + "mxgpu_ai.c",
                "4.15-6.18",
                "amdgpu: ",
                args=(500,),
            ),
            Format(
                "Doesn't get msg:%d from pf, error=%d",
                _AMD + "mxgpu_nv.c",
                "5.9-6.18",
                "amdgpu: ",
                args=(5, -62),
            ),
            Format(
                "timeout: rlcg faled to program reg: 0x%05x",
                _AMD + "amdgpu_virt.c",
                "5.18-6.8",
                _DEV,
                args=(0xA2C0,),
            ),
            Format(
                "waiting IDH_FLR_NOTIFICATION_CMPL timeout",
                _AMD + "mxgpu_ai.c",
                "6.0-6.8",
                _DEV,
            ),
            Format(
                "register is not in range, rlcg failed to program reg: 0x%05x",
                _AMD + "amdgpu_virt.c",
                "6.1-6.18",
                _DEV,
                args=(0xA2C0,),
            ),
        ),
    ),
    # amdgpu_bios.c amdgpu_get_bios: every way of reading the VBIOS failed (ROM BAR, VFCT,
    # ATRM, platform): DRM_ERROR "Unable to locate a BIOS ROM" (4.4-5.x), dev_err (6.x);
    # "Fatal error during GPU init" follows. radeon_bios.c and the vendor-reset module print
    # the same words under their own names. gfx_v11_0.c gfx_v11_0_wait_for_rlc_autoload_
    # complete (6.0-6.18): dev_err "rlc autoload: gc ucode autoload timeout", the RLC's
    # firmware back-door load never finished: hw_init of gfx fails
    sig(
        "amdgpu_init_failure",
        r"(?:\[drm:amdgpu_get_bios \[amdgpu\]\] \*ERROR\* |amdgpu \S+: (?:amdgpu: )?)"
        r"Unable to locate a BIOS ROM\b|\brlc autoload: gc ucode autoload timeout\b",
        ("locate", "autoload"),
        Severity.ERROR,
        AMDGPU,
        "The GPU failed to initialise: its VBIOS could not be read, or its RLC firmware did "
        "not load.",
        "See amdgpu_init_failure in gpu.py; a missing VBIOS on a passed-through GPU means "
        "its ROM was not handed to the VM (romfile=, or the host's frame buffer holds it).",
        42,
        device_kind=_PCI,
        formats=(
            Format(
                "Unable to locate a BIOS ROM",
                _AMD + "amdgpu_bios.c",
                "4.4-5.19",
                _drm("amdgpu_get_bios"),
            ),
            Format("Unable to locate a BIOS ROM", _AMD + "amdgpu_bios.c", "6.1-6.18", _DEV),
            Format(
                "rlc autoload: gc ucode autoload timeout",
                _AMD + "gfx_v11_0.c",
                "6.0-6.18",
                _DEV,
            ),
        ),
    ),
    # psp_v11_0.c psp_v11_0_ring_create (5.0-6.18) DRM_ERROR "Failed to wait for sOS ready for
    # ring creation"; psp_v13_0.c, psp_v13_0_4.c, psp_v14_0.c "Failed to wait for trust OS
    # ready for ring creation" (5.15-6.18): the PSP's secure OS never came up, so no firmware
    # loads: "PSP create ring failed!" and the hw_init failure follow
    sig(
        "amdgpu_init_failure",
        r"\bFailed to wait for (?:sOS|trust OS) ready for ring creation\b",
        ("creation",),
        Severity.ERROR,
        AMDGPU,
        "The GPU's security processor (PSP) firmware did not start: no GPU firmware loads, "
        "the GPU fails to initialise.",
        "See amdgpu_init_failure in gpu.py.",
        42,
        device_kind=_PCI,
        formats=(
            Format(
                "Failed to wait for sOS ready for ring creation",
                _AMD + "psp_v11_0.c",
                "5.0-6.18",
                _drm("psp_v11_0_ring_create"),
            ),
            Format(
                "Failed to wait for trust OS ready for ring creation",
                _AMD + "psp_v13_0.c",
                "5.15-6.18",
                _drm("psp_v13_0_ring_create"),
            ),
        ),
    ),
    # amdkfd/kfd_device.c kgd2kfd_device_init (4.4-5.x, kfd_device's dev_err without amdgpu's
    # dev_fmt: gpu.py reads the "kfd kfd: amdgpu: " form): "device %x:%x NOT added due to
    # errors" after a failed step, e.g. kfd_resume's dev_err "Failed to resume IOMMU for
    # device %x:%x" (4.4-5.x, APUs with IOMMUv2): ROCm has no GPU
    sig(
        "amdgpu_kfd_error",
        r"^kfd kfd: (?:device [0-9a-f]+:[0-9a-f]+ NOT added due to errors"
        r"|Failed to resume IOMMU for device [0-9a-f]+:[0-9a-f]+)",
        ("NOT", "IOMMU"),
        Severity.ERROR,
        AMDGPU,
        "The compute driver (KFD) could not add the GPU: ROCm/OpenCL compute has no device.",
        "See amdgpu_kfd_error; on an APU with 'Failed to resume IOMMU', check the IOMMU is on "
        "(amd_iommu=on, firmware setting) or update the kernel.",
        36,
        formats=(
            Format(
                "device %x:%x NOT added due to errors",
                "drivers/gpu/drm/amd/amdkfd/kfd_device.c",
                "4.4-5.4",
                "kfd kfd: ",
                args=(0x1002, 0x15D8),
            ),
            Format(
                "Failed to resume IOMMU for device %x:%x",
                "drivers/gpu/drm/amd/amdkfd/kfd_device.c",
                "4.4-5.4",
                "kfd kfd: ",
                args=(0x1002, 0x15D8),
            ),
        ),
    ),
)
