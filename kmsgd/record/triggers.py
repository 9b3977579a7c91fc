"""Which kernel records start an incident: the recorder's own small trigger table.

Why a copy and not the catalogue: the catalogue (kmsgd.catalogue) is the post-mortem's, with
every signature, its checks and its prose; the daemon may not import it
(tests/test_code_rules.py: the recorder runs for months on locked memory and carries no
post-mortem code). The triggers are a property of the catalogue entries (`Signature.trigger`,
kmsgd/catalogue/base.py), so adding one there is data; this table repeats the few patterns
the recorder needs, as bytes regexes over the raw record, and tests/record/test_triggers.py
fails the moment the two disagree (tags, classes, bursts, Xid codes, and every catalogue
example line of a trigger tag must give the same answer here).

Only kernel-facility records count: the facility is the high bits of the `<prio>` field of
`FAC_LEVEL,seq,ts,-;text` (Documentation/ABI/testing/dev-kmsg), 0 for the kernel; a
userspace write to /dev/kmsg is at least LOG_USER (1) and cannot forge facility 0
(kernel/printk/printk.c devkmsg_write).
"""

from __future__ import annotations

import re
import string
import time
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class KernelTrigger:
    tag: str
    cls: str  # the incident class: one incident per class per rate-limit window
    keywords: tuple[bytes, ...]  # one must occur as a whole word (the catalogue's keywords)
    pattern: re.Pattern[bytes]
    needs: tuple[bytes, ...] = ()  # one of these must be in the line (the catalogue's check)
    unless: re.Pattern[bytes] | None = None  # a line that also matches this is not one
    narrow: re.Pattern[bytes] | None = None  # the line must match this too
    burst: int = 1  # this many hits ...
    window_s: float = 0.0  # ... within this many seconds trigger


def _t(tag: str, cls: str, words: tuple[str, ...], regex: str, **extra: object) -> KernelTrigger:
    return KernelTrigger(
        tag,
        cls,
        tuple(w.encode() for w in words),
        re.compile(regex.encode()),
        **extra,  # type: ignore[arg-type]
    )


_AMD = (b"amdgpu", b"[drm", b"drmn")  # FreeBSD's drm-kmod names the device drmn0
# Xid codes that start an incident, as kmsgd/catalogue/xid.py XID_TRIGGERS
XID_CLASSES: dict[int, str] = {
    8: "gpu_hang",
    62: "gpu_hang",
    79: "gpu_lost",
    109: "gpu_hang",
    119: "gpu_hang",
    120: "gpu_hang",
    154: "gpu_hang",
}
# MIG instances add " GPU-I:%d" and " GPU-CI:%d" after the bus id (H100/H200 datacenter boxes)
_XID = re.compile(rb"NVRM: Xid \((?:PCI:)?[0-9a-fA-F:.]+(?: GPU-I:\d+)?(?: GPU-CI:\d+)?\): (\d+)\b")

TABLE: tuple[KernelTrigger, ...] = (
    _t(
        "amdgpu_smu_timeout",
        "gpu_hang",
        ("SMU", "failed", "SMC", "powerplay", "smu", "yet", "Failed", "message", "timeout"),
        r"SMU: (?:No response|I'm not done with your (?:previous|current) command"
        r"|response:0x)|Failed to export SMU metrics table|SMU (?:is )?(?:not responding"
        r"|hang)|SMU is in hanged state|smu_cmn_send_smc_msg\S* failed"
        r"|\[powerplay\].*(?:failed to send message|last message was failed|No response)"
        r"|SMC failed to respond|failed to send message [0-9a-fA-F]+ ret is -?\d+"
        r"|last message was failed ret is -?\d+|failed send message: "
        r"|Failed to send message:? 0x[0-9a-fA-F]+, (?:ret value: |response )0x"
        r"|message: +\w+ \(\d+\)\s+param: 0x[0-9a-fA-F]+ is timeout \(no response\)"
        r"|Failed message: 0x[0-9a-fA-F]+, input parameter: 0x[0-9a-fA-F]+, error code: 0x"
        r"|\[powerplay\] Failed to notify smc display settings!"
        # kmsgd/catalogue/gpu_more.py: the SMC start that fails on resume
        r"|SMC engine is not correctly up|\bSMC is not ready\b|SMU is not ready yet!"
        r"|resume of IP block <smu> failed",
    ),
    _t(
        "amdgpu_mes_timeout",
        "gpu_hang",
        ("MES", "failed"),
        r"MES failed to respon(?:d to|se) msg|MES might be in unrecoverable state"
        r"|failed to (?:unmap legacy queue|remove hardware queue|add hardware queue)",
    ),
    _t(
        "amdgpu_vm_fault",
        "gpu_hang",
        (
            "fault",
            "VM_L2_PROTECTION_FAULT_STATUS",
            "GCVM_L2_PROTECTION_FAULT_STATUS",
            "MMVM_L2_PROTECTION_FAULT_STATUS",
            "VM_CONTEXT1_PROTECTION_FAULT_ADDR",
            "VM_CONTEXT1_PROTECTION_FAULT_STATUS",
            "WALKER_ERROR",
            "PERMISSION_FAULTS",
            "MAPPING_ERROR",
        ),
        r"\[(?:gfx|mm)hub\d*\] (?:VMC |UTCL2 )?(?:retry |no-retry )?page fault"
        r"|VM_L2_PROTECTION_FAULT_STATUS|GPU fault detected: \d+ 0x"
        r"|VM_CONTEXT1_PROTECTION_FAULT_(?:ADDR|STATUS)"
        r"|(?:^|: )\s*(?:WALKER_ERROR|PERMISSION_FAULTS|MAPPING_ERROR): 0x[0-9a-fA-F]+$",
        burst=10,
        window_s=10.0,
    ),
    _t(
        "amdgpu_kfd_error",
        "gpu_hang",
        ("KFD", "Failed", "failed", "error"),
        r"Failed to (?:quiesce KFD|evict (?:queue|process)|suspend process"
        r"|restore process)|kfd kfd: amdgpu: .*(?:fail|error)|amdgpu: Failed to (?:resume"
        r"|evict) KFD",
    ),
    _t(
        "radeon_gpu_lockup",
        "gpu_hang",
        ("stalled", "lockup", "failed", "timed"),
        r"(?:radeon \S+: |drmn\d+: )(?:ring \d+ stalled for more than \d+msec"
        r"|GPU lockup \(current fence id)"
        r"|radeon: (?:(?:ring \d+|ib) test failed \(scratch|fence wait (?:timed out|failed)"
        r"|failed testing IB on (?:GFX ring|ring \d+) \(-?\d+\))",
    ),
    _t(
        "amdgpu_ring_timeout",
        "gpu_hang",
        ("timeout", "amdgpu_job_timedout"),
        r"ring \S+ timeout(?:, signaled seq|\b)|\[drm:amdgpu_job_timedout \[amdgpu\]\]"
        r"|\[drm ERROR :amdgpu_job_timedout\]",
        needs=_AMD,
    ),
    _t(
        "amdgpu_gpu_reset",
        "gpu_hang",
        ("reset", "recovery", "Recovery"),
        r"GPU reset begin|GPU reset\(\d+\) (?:succeeded|failed)|GPU reset (?:succeeded"
        r"|failed)|GPU recovery disabled|(?:MODE1|MODE2|BACO) reset|ASIC reset failed"
        r"|GPU Recovery Failed|(?:^|: )GPU reset\s*$"
        r"|psp is not working correctly before mode1 reset",
        needs=_AMD,
    ),
    _t(
        "i915_gpu_hang",
        "gpu_hang",
        (
            "HANG",
            "Resetting",
            "reset",
            "Timedout",
            "chip",
            "rendering",
            "response",
            "action",
            "fence",
            "stalled",
            "wedged",
            "Schedule",
            "submitted",
            "execqueue",
            "stuck",
            "progress",
            "dump",
        ),
        r"GPU HANG: ecode \d+:|Resetting (?:chip after|\w+ for) "
        r"|\w+:? reset request time(?:d out|out)"
        r"|(?:GuC engine reset request|Engine reset) failed on \d+:\d+ \("
        r"|Timedout job: seqno=\d+, (?:lrc_seqno=\d+, )?guc_id=\d+"
        r"|Engine reset: engine_class=\w+, logical_mask: 0x"
        r"|Failed to reset GuC, ret = -?\d+|Failed to reset chip\b"
        r"|Failed to initialise HW following reset|timed out, cancelling all in-flight rendering"
        r"|CT\d*: (?:No response for request 0x[0-9a-fA-F]+|Sending action 0x[0-9a-fA-F]+ failed"
        r"|fence \d+ err -?\d+|Communication stalled for -?\d+ ms)"
        r"|(?i:tlb invalidation response timed out for seqno) \d+"
        r"|TLB invalidation fence timeout, seqno=|GT\d+: reset failed \("
        r"|Xe has declared device \S+ as wedged|Timed out wait for G2H, fence \d+, action"
        r"|Schedule disable failed to respond, guc_id=|Kernel-submitted job timed out"
        r"|VM job timed out on non-killed execqueue"
        r"|\b(?:stuck|no progress) on (?:render|bsd2?|blitter|video enhancement) ring\b"
        r"|GPU crash dump saved to /sys/class/drm/card\d+/error",
        # the catalogue's check: i915's own hang words, or a line that names i915 or opens as xe's
        narrow=re.compile(
            rb"GPU HANG|(?:stuck|no progress) on \w[\w ]* ring|GPU crash dump|i915|^xe "
        ),
    ),
    _t(
        "drm_flip_timeout",
        "gpu_hang",
        ("timed",),
        r"\[(?:CRTC|CONNECTOR|PLANE):\d+:[^\]]*\] (?:flip_done|hw_done|cleanup_done|commit wait"
        r"|vblank wait) timed out|\b(?:flip_done|hw_done) timed out|vblank wait timed out on crtc",
    ),
    _t(
        "soc_gpu_hang",
        "gpu_hang",
        ("Resetting", "sched", "hung", "hangcheck"),
        r"v3d \S+: .*Resetting GPU for hang\.|panfrost \S+: gpu sched timeout, js=\d+"
        r"|etnaviv(?:-gpu)? \S+: recover hung GPU!|hangcheck detected gpu lockup rb \d+!",
    ),
    _t(
        "nvidia_gsp_timeout",
        "gpu_hang",
        ("GSP", "_kgspLogXid119", "heartbeat", "Heartbeat"),
        r"GSP (?:RPC )?[Tt]imeout|waiting for RPC response from (?:GPU\d* )?GSP|_kgspLogXid119"
        r"|GSP task watchdog timeout|(?:GSP RM|LibOS) heartbeat timed out"
        r"|Heartbeat timed out, currentTimeMs \d+|GSP core unresponsive|GSP-RM unresponsive"
        r"|GSP-RM is slow",
    ),
    _t(
        "gpu_fell_off_bus",
        "gpu_lost",
        ("fallen", "lost", "NV_ERR_GPU_IS_LOST"),
        "GPU has fallen off the bus|fallen off the bus|amdgpu: device lost from bus"
        r"|GPU lost from the bus \[NV_ERR_GPU_IS_LOST\]",
        unless=re.compile(rb"Xid"),
    ),
    _t(
        "hard_lockup",
        "cpu_lockup",
        ("LOCKUP",),
        r"Watchdog detected hard LOCKUP on cpu (?P<cpu>\d+)|Hard LOCKUP"
        r"|NMI Watchdog detected LOCKUP on CPU ?(?P<cpu2>\d+)"
        r"|CPU (?P<cpu3>\d+) (?:self-detected hard LOCKUP|detected hard LOCKUP on other CPUs)",
    ),
    _t(
        "soft_lockup",
        "cpu_lockup",
        ("lockup", "softlockup"),
        "BUG: soft lockup - CPU#?\\s?(?P<cpu>\\d+) stuck for|softlockup: hung tasks"
        r"|BUG: soft lockup detected on CPU#(?P<cpu2>\d+)!",
    ),
    _t(
        "rcu_stall",
        "cpu_lockup",
        ("stall", "stalls", "starved", "gp_state"),
        r"INFO: \S+ (?:detected (?:expedited )?stalls? on CPU|self-detected stall on CPU"
        r"|detected stalls on tasks|detected expedited stalls, but)"
        r"|rcu_\w+ (?:detected (?:expedited )?stalls? on CPU|self-detected stall)"
        r"|\brcu_\w+ kthread starved for \d+ jiffies|RCU detected CPU \d+ stall"
        r"|INFO: RCU detected CPU stalls:"
        r"|\brcu_tasks\w* grace period number \d+ \(since boot\) gp_state: \S+ is \d+ jiffies",
    ),
    _t(
        "hung_task",
        "hung_task",
        ("blocked", "hung_task"),
        "INFO: task .{1,40}?:\\d+ blocked for more than \\d+ seconds|hung_task: blocked tasks",
    ),
    # uncorrected only: arch/x86/kernel/cpu/mce/core.c __print_mce says "Machine Check
    # Exception" while MCIP is set; mce_panic says "Fatal machine check"
    _t(
        "oom_kill",
        "oom",
        ("Killed", "Kill", "kill", "killable", "panic_on_oom", "killing"),
        r"(?:Memory cgroup )?[Oo]ut of memory(?: \(oom_kill_allocating_task\))?: "
        r"(?:Kill(?:ed)? process"
        r"|kill process) \d+ \((?P<comm>[^)]*)\)"
        r"|^Killed process \d+ \((?P<comm2>[^)]*)\),? (?:UID \d+, )?total-vm:"
        r"|^Killed process \d+, UID \d+, \((?P<comm4>[^)]*)\) total-vm:"
        r"|Out of memory and no killable processes|Out of memory: \S+ panic_on_oom is enabled"
        r"|^Out of Memory: Killed process \d+ \((?P<comm3>[^)]*)\)|^VM: killing process \S",
    ),
    _t(
        "mce",
        "mce",
        ("Hardware", "Machine", "machine"),
        r"\[Hardware Error\]: (?:CPU \d+: Machine Check|Machine check: |PROCESSOR|RIP|TSC"
        r"|Run the above|(?:Un)?[Cc]orrected(?: error|, ))|Machine check events logged"
        r"|Fatal [Mm]achine check|^CPU \d+: Machine Check Exception:|^HARDWARE ERROR$"
        r"|^Oops: Machine check, sig: \d+"
        r"|\[Hardware Error\]: (?:CPU:\d+\s(?:\([0-9a-f:]+\) )?)?MC\d+_STATUS\["
        r"|\[Hardware Error\]: (?:Northbridge|MC4) Error \(node \d+\): ",
        narrow=re.compile(rb"Machine Check Exception|Fatal [Mm]achine check|[Uu]ncorrected"),
    ),
    _t(
        "aer_fatal",
        "pcie",
        ("Fatal",),
        "(?:PCIe Bus Error: severity=)?Uncorrect(?:ed|able) \\(Fatal\\)",
    ),
    _t(
        "pcie_link_down",
        "pcie",
        ("Down", "down", "DPC"),
        r"Slot\([^)]*\): Link Down|pciehp.*Link Down|DPC: containment event|Link Down\b"
        r"|link down\b.*(?:pcie|PCIe)",
        unless=re.compile(rb"\beth\d|\ben\w+: |\bwl"),
    ),
    _t(
        "thermal_critical",
        "thermal",
        ("critical", "Critical", "CTF", "THERMTRIP", "shutdown"),
        r"critical temperature reached|[Cc]ritical temperature"
        r"|over temperature range\((?:SW|HW) CTF\)|THERMTRIP|thermal shutdown",
    ),
    _t(
        "nvme_timeout",
        "storage",
        ("timeout", "nvme_keep_alive_end_io", "Timeout", "down", "alive"),
        r"nvme\d*: I/O (?:tag )?\d+ \(?\S*\)? ?(?:opcode \S+ \([^)]*\) )?QID \d+ timeout"
        r"|I/O \d+ (?:\([^)]*\) )?QID \d+ timeout|nvme\d+: queue \d+: timeout request"
        r"|failed nvme_keep_alive_end_io|keep alive timeout|Keep Alive Timeout"
        r"|nvme\d+: keep-alive failed|controller is down; will reset",
    ),
)

# The prefilter, as the catalogue's (kmsgd/catalogue/table.py): split on punctuation but "_"
# and look for a keyword; ~1 µs a line, where trying the patterns costs ~14 µs.
_PUNCT = bytes(c for c in range(33, 127) if chr(c) in string.punctuation and chr(c) != "_")
_SPLIT = bytes.maketrans(_PUNCT, b" " * len(_PUNCT))
_BY_WORD: dict[bytes, tuple[KernelTrigger, ...]] = {}
for _trig in TABLE:
    for _w in _trig.keywords:
        _BY_WORD[_w] = (*_BY_WORD.get(_w, ()), _trig)
_XID_WORD = b"Xid"
KEYWORDS = frozenset([*_BY_WORD, _XID_WORD])


@dataclass(frozen=True, slots=True)
class Hit:
    tag: str
    cls: str
    text: str  # the record's message (escaped as the kernel wrote it)
    burst: int = 1
    window_s: float = 0.0


def message_of(raw: bytes) -> tuple[int, bytes] | None:
    """(facility, message) of a raw /dev/kmsg record, or None when the header is garbage."""
    head, sep, rest = raw.partition(b";")
    if not sep:
        return None
    comma = head.find(b",")
    try:
        prio = int(head[:comma] if comma >= 0 else head)
    except ValueError:
        return None
    return prio >> 3, rest.split(b"\n", 1)[0]


def match(raw: bytes) -> Hit | None:
    """The trigger a raw record is, if any; kernel facility only. Pure."""
    got = message_of(raw)
    if got is None or got[0] != 0:
        return None
    return match_message(got[1])


def match_message(msg: bytes) -> Hit | None:
    """The trigger a kernel message (the text after `;`) is, if any."""
    words = KEYWORDS.intersection(msg.translate(_SPLIT).split())
    if not words:
        return None
    if _XID_WORD in words:
        xid = _XID.search(msg)
        if xid is not None:
            code = int(xid.group(1))
            cls = XID_CLASSES.get(code)
            if cls is None:
                return None
            return Hit(f"nvidia_xid_{code}", cls, msg.decode("ascii", "replace"))
    tried: set[str] = set()
    for t in TABLE if len(words) > 2 else (t for w in words for t in _BY_WORD.get(w, ())):
        if t.tag in tried or t.pattern.search(msg) is None:
            continue
        tried.add(t.tag)
        if t.needs and not any(n in msg for n in t.needs):
            continue
        if t.unless is not None and t.unless.search(msg):
            continue
        if t.narrow is not None and t.narrow.search(msg) is None:
            continue
        return Hit(t.tag, t.cls, msg.decode("ascii", "replace"), t.burst, t.window_s)
    return None


def age_s(raw: bytes) -> float | None:
    """How long ago (s) the kernel logged a raw record, by its printk stamp and
    CLOCK_MONOTONIC (the printk clock is local_clock(), which tracks CLOCK_MONOTONIC to
    within a millisecond; neither counts suspend: clock_gettime(2))."""
    head = raw.split(b";", 1)[0].split(b",", 3)
    try:
        ts = int(head[2])
    except (IndexError, ValueError):
        return None
    return time.clock_gettime(time.CLOCK_MONOTONIC) - ts / 1e6
