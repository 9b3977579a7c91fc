"""The tolerant path: a line no known format parses may still be a kernel line a person reads.

Known formats (formats.py) are the fast path, not a gate. What people paste into tickets
wraps the message in things no format names: markup (ANSI colours, HTML `<details>`,
backticks, `> ` quotes, diff `+`), collector and hypervisor prefixes
(`192.168.1.5: kern: warning: [2026-04-22T21:27:51.29Z]: …`, `[guest0/uart0] [ 1.8] …`),
syslog and journal stamps with the host cut off or the month localised
(`Feb  2 08:03:20 kernel: …`, `avril 16 21:08:50 systemd-oomd[93234]: …`), consoles whose
stamps are blank (`[      ] …`), bare message bodies (`dmesg -t`, FreeBSD's drm-kmod).
`clean_markup` removes the markup; `salvage` finds the message behind any prefix and says
whether it is kernel wording. Pure string functions.
"""

from __future__ import annotations

import html
import re

from kmsgd.logparse.formats import LOCAL_MONTHS as _LOCAL_MONTHS
from kmsgd.logparse.formats import Fields, iso_us, parse_kmsg, usec, wall_from_parts
from kmsgd.logparse.origin import kernel_opening
from kmsgd.logparse.parsed import LogFormat

_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_TAG = r"</?(?:details|summary|code|pre|p|br|div|span|b|i|tt|kbd|samp|blockquote|sub|sup)\b[^>]*>"
_HTML_HEAD = re.compile(rf"(?:\s*{_TAG})+\s*", re.IGNORECASE)
_HTML_TAIL = re.compile(rf"\s*(?:{_TAG}\s*)+$", re.IGNORECASE)
# quote marks (also after a diff's +/-), table pipes, list bullets, line-number gutters (not
# the hours of a time: "12:09:20 amdgpu …")
_LEAD = re.compile(
    r"(?:[+\-](?=\s*>)|\s*>+\s?|\s*\|\s?|\s*[*•]\s+(?=\S)"
    r"|\s*\d{1,7}(?!:\d\d:\d\d)(?:[:|\t]\s?|\.\s|\s+(?=[\[<])))+"
)
# a fence's info string ("```text") only where nothing follows it: "```watchdog: BUG: …```"
# is a message in inline triple backticks
_FENCE = re.compile(r"`{3,}(?:\w+$)?|~{3,}(?:\w+$)?")

# a printk stamp anywhere in a line's first 200 characters, or a blank console one
# printk's stamp, with the caller or CPU field that may follow it (formats.py _DMESG)
_STAMP = re.compile(
    r"(?:<(\d{1,3})>)?\[\s*(\d{1,9})\.(\d{3,9})\](?:\s?\[\s*[TC]\d+\]|\[\d{1,3}\])?\s?"
)
_BLANK_STAMP = re.compile(r"\[\s+\]\s?")
# a wall-clock time (with its date before it, in any language) ending a prefix
_TIME = re.compile(
    r"(?<![\d:.])(?P<time>\d{1,2}:\d{2}:\d{2})(?![:\w])(?:[.,](?P<frac>\d{1,9}))?"
    r"(?:\s*(?:Z|UTC|[+-]\d\d:?\d\d))?\]?:?\s+"
)
_ISO_DATE = re.compile(r"(\d{4})-(\d\d)-(\d\d)[T ]$")
_MONTH_DAY = re.compile(
    r"([^\W\d_]{3,9})\.?\s+(\d{1,2})\.?\s*$|(\d{1,2})\.?\s+([^\W\d_]{3,9})\.?\s*$"
)
# after the time: "[host] kernel: text", "[host] ident[pid]: text"
_WHO = re.compile(r"(?:([^\s:\[\]]+)\s+)?([^\s\[\]:]+)(?:\[(\d+)\])?:(?:\s+|$)")
_KERNEL_WORD = re.compile(
    r"(?:^|\s)kern(?:el)?(?:\[\d+\])?\s*[:.]\s*"
    r"(?:(?:emerg|alert|crit|err|error|warn|warning|notice|info|debug)\s*:\s*)?"
)
# "kernel:" after a syslog level token, whatever stamp or host comes before: busybox
# syslogd's and Docker's VM log "kern.info kernel: …" (facility.level, as syslog.conf names
# them), a PRI "<4>kernel: …" (RFC 3164 on the wire)
_LEVELED_KERNEL = re.compile(
    r"(?:^|\s)(?:kern\.(?P<name>emerg|alert|crit|err|error|warn|warning|notice|info|debug)"
    r"|<(?P<pri>\d{1,3})>)\s*kernel(?:\[\d+\])?:\s?"
)
_LEVELS = {"emerg": 0, "alert": 1, "crit": 2, "err": 3, "error": 3, "warn": 4, "warning": 4}
_LEVELS |= {"notice": 5, "info": 6, "debug": 7}
_QUOTED = re.compile(r'(?:^|\s)"')
# a facility and level column, then the stamp's date: Talos's `talosctl dmesg` prints each
# record as "%s: %s: %7s: [%s]: %s" (node, facility, level, RFC 3339 time, message); group 1
# `kern` is set when the facility is the kernel's
_FACILITY_BEFORE_STAMP = re.compile(
    r"(?:^|\s)(?:(?P<kern>kern)|(?P<other>\w+)): +"
    r"(?:emerg|alert|crit|err|warning|notice|info|debug): +\[?\d{4}-\d\d-\d\dT$"
)
# ESXi's vmkernel.log: "<ISO time> cpu<N>:<world id>)<module>:<function>:<line>: …"; the
# hypervisor's kernel, read on its public wording (vmkernel's source is not public); the
# message keeps its "cpu<N>:<world>)" (origin.py knows it as an opening)
_VMKERNEL_WORLD = re.compile(r"cpu\d+:\d+\)(?=\S)")
# Genode's LOG session: core prints each component's line after its session label, the
# parents' names joined by " -> " ("[init -> usb_drv -> usb_drv] "); a Linux driver ported
# into a component (Genode's dde_linux: pc_usb_host_drv, the wifi and intel_fb drivers)
# prints the kernel's own message behind it, so the message is read by its opening
_GENODE_LABEL = re.compile(r"\[(?:[\w.:-]+ -> )+[\w.:-]+\] ")
# an inline code span inside a prose sentence ("warnings like `nvme nvme0: I/O 34 QID 13
# timeout, aborting` in the journal"): the span is the message when it opens as the kernel's
_CODE_SPAN = re.compile(r"`([^`]+)`")
# a whole line "ident[pid]: text", after the leading space a console indents it with
_CONSOLE_PROGRAM = re.compile(r"\s*(([A-Za-z][\w.@-]{0,31})\[(\d{1,7})\]: )\S")
_HOST_WORD = re.compile(r"([\w.-]+) +")  # a scrubbed host may be padded
_PRIO = re.compile(r"<([0-7])>\s?")
# a Kubernetes event quoting a log line: `kubectl describe`'s "Type Reason Age From Message"
# table ("Warning  TaskHung  5m23s (x3 over 10m)  kernel-monitor, node-1  INFO: task …") and
# `kubectl get events`' "LAST SEEN TYPE REASON OBJECT MESSAGE" ("5m23s  Warning  TaskHung
# node/node-1  INFO: task …"); node-problem-detector's kernel-monitor quotes kernel lines
_K8S_AGE = r"(?:<unknown>|<invalid>|\d+[smhdy](?:\d+[smh])?(?: \(x\d+ over \S+\))?)"
_K8S_EVENT = re.compile(
    rf"(?:(?:Normal|Warning)\s+[A-Z]\w*\s+{_K8S_AGE}\s+(?P<src>[\w.-]+(?:, [\w.-]+)?)"
    rf"|{_K8S_AGE}\s+(?:Normal|Warning)\s+[A-Z]\w*\s+\w+/[\w.-]+)\s+(?P<msg>\S.*)"
)
# Kernel wording at the start of a message: drivers and subsystems that print with a prefix
# (dev_printk's "driver 0000:03:00.0: ", pr_fmt's "subsys: "), the oops/panic/lockup/stall
# reports (lib/bug.c, kernel/panic.c, kernel/watchdog.c, kernel/rcu/tree_stall.h,
# arch/x86/mm/fault.c, mm/oom_kill.c) and their register and trace dumps.
_KERNELISH = re.compile(
    r"(?:\[drm|drm|NVRM|nvidia|nvidia-modeset|amdgpu|radeon|i915|nouveau|xe\b|kfd|drmn\d|"
    r"BUG|WARNING|INFO: |Oops|Kernel panic|Call [Tt]race|RIP: |RSP: |Code: |Modules linked in|"
    r"Hardware name|CPU:? ?\d|Workqueue: |Internal error|Unable to handle|NMI|rcu|INFO: rcu|"
    r"mce: |\[Hardware Error\]|EDAC|Out of memory|Memory cgroup|oom|Killed process|"
    r"EXT[234]-fs|XFS|BTRFS|ZFS|SPL|pcieport|AER|DMAR|AMD-Vi|iommu|nvme|ata\d|sd \d|scsi|"
    r"blk_update_request|I/O error|Buffer I/O|usb \d|pci |PCI|ACPI|x86|watchdog|Tainted|"
    r"Mem-Info|sysrq|SysRq|Kernel Offset|---\[ end|ret_from_fork|kthread|Task dump|"
    r"swapper|pc : |lr : |sp : |x\d+ ?: |R\d\d: |R[ABCD]X: |RBP: |RSI: |RDI: |FS: |CS: |CR2: |"
    r"<TASK>|</TASK>|<IRQ>|</IRQ>|\? [\w.]+\+0x|\[<[0-9a-f]+>\]|thermal|Linux version|"
    r"Command line: |VFS: |List of all|audit: |device_attach: |systemd\[1\]|"
    r"[\w.-]+ (?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]: |"
    # the SoC GPU drivers' names as a paste shortens their dev_printk prefix ("v3d: …" for
    # "v3d fec00000.v3d: [drm:v3d_reset [v3d]] *ERROR* …"), and v3d_reset's register line
    r"(?:v3d|vc4|panfrost|panthor|lima|etnaviv|msm|adreno): |V3D_[A-Z0-9_]+: 0x[0-9a-f]+$|"
    r"[\w-]+ [\w-]+: \w+ (?:error|fault|timeout)|"
    r"[a-z_][\w.-]*\+0x[0-9a-f]+/0x[0-9a-f]+)"
)


def clean_markup(line: str) -> str:
    """The line without the markup a paste wraps around it (ANSI escapes, HTML tags and
    entities, backticks and fences, quote marks, table pipes, line numbers)."""
    text = line
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if "<" in text:
        text = _HTML_TAIL.sub("", _HTML_HEAD.sub("", text, count=1))
    if "&" in text and ";" in text:
        text = html.unescape(text)
    text = text.strip()
    if "`" in text or "~~~" in text:
        text = _FENCE.sub("", text).strip().strip("`").strip()
    m = _LEAD.match(text)
    if m is not None and m.end():
        text = text[m.end() :].strip()
    return text


def kernelish(text: str) -> bool:
    """Whether a message without any stamp or prefix reads as kernel wording."""
    return _KERNELISH.match(text) is not None


def _month(word: str) -> int | None:
    w = word.lower().rstrip(".")
    return _LOCAL_MONTHS.get(w[:4]) or _LOCAL_MONTHS.get(w[:3])


def _wall(prefix: str, hms: str, frac: str | None) -> tuple[int | None, tuple[int, int] | None]:
    """Wall µs (and month/day when yearless) from the date words before a time."""
    hms = hms.zfill(8)
    iso = _ISO_DATE.search(prefix)
    if iso is not None:
        return iso_us(f"{iso[1]}-{iso[2]}-{iso[3]}", hms, frac, None), None
    md = _MONTH_DAY.search(prefix)
    if md is None:
        return None, None
    word, day = (md[1], md[2]) if md[1] else (md[4], md[3])
    month = _month(word)
    if month is None:
        return None, None
    return wall_from_parts(2000, month, int(day), hms, frac), (month, int(day))


def salvage(text: str) -> Fields | None:
    """Fields of a line no known format took, read behind whatever prefix it has; None
    when it holds no kernel or journal message (prose, a shell line, a bare dump line)."""
    head = text[:200]
    if "kernel" in head and (lk := _leveled_kernel(text, head)) is not None:
        return lk
    m = _STAMP.search(head)
    if m is not None and (m.start() == 0 or not _looks_like_message(head[: m.start()])):
        prio, sec, frac = m.groups()
        msg = text[m.end() :]
        level = int(prio) & 7 if prio else None
        return Fields(LogFormat.LOOSE, msg, usec(sec, frac), None, level, 0 if prio else None)
    if head[:1] == "[":
        b = _BLANK_STAMP.match(head)
        if b is not None:
            return Fields(LogFormat.LOOSE, text[b.end() :])
        g = _GENODE_LABEL.match(head)
        if g is not None and kernel_opening(text[g.end() :]):
            return Fields(LogFormat.LOOSE, text[g.end() :])
    t = _TIME.search(head)
    if t is not None and t.start() <= 60:
        wall, md = _wall(head[: t.start()], t["time"], t["frac"])
        rest = text[t.end() :]
        if (k := _FACILITY_BEFORE_STAMP.search(head, 0, t.start())) is not None:
            # a collector's facility column before the stamp (talosctl dmesg: "<node>: kern:
            # <level>: [<RFC 3339>]: text"): it says whose record it is, whatever its text
            if k["kern"]:
                return Fields(LogFormat.LOOSE, rest, None, wall, facility=0, month_day=md)
            who = k["other"]
            return Fields(LogFormat.LOOSE, rest, None, wall, facility=1, ident=who, month_day=md)
        return _after_stamp(rest, wall, md)
    k = _KERNEL_WORD.search(head)
    if k is not None and k.start() <= 80:
        return Fields(LogFormat.LOOSE, text[k.end() :], facility=0)
    p = _PRIO.match(head)
    if p is not None:
        level = int(p.group(1))
        return Fields(LogFormat.LOOSE, text[p.end() :], level=level)
    if kernelish(text) or kernel_opening(text):
        return Fields(LogFormat.LOOSE, text)
    e = k8s_event(text)
    if e is not None and (
        (e["src"] or "").startswith("kernel-monitor") or kernel_opening(e["msg"])
    ):
        return Fields(LogFormat.LOOSE, e["msg"])
    c = _CONSOLE_PROGRAM.match(text)
    if c is not None:
        # a program's line on a console with no stamp: systemd-shutdown and its helpers
        # write "ident[pid]: text" to the console (" sd-umoun[2406]: …", " shutdown[1]: …")
        return Fields(LogFormat.LOOSE, text[c.start(1) :], facility=3, ident=c[2], pid=c[3])
    q = _QUOTED.search(head)
    if q is not None and kernel_opening(text[q.end() :]):
        # a tool's report quoting the kernel's message: '[XID found] (5 minutes ago) "NVRM: …"'
        msg = text[q.end() :].rstrip()
        return Fields(LogFormat.LOOSE, msg[:-1] if msg.endswith('"') else msg)
    if "`" in text:
        for span in _CODE_SPAN.finditer(text):
            if kernel_opening(span[1].strip()):
                return Fields(LogFormat.LOOSE, span[1].strip())
    return None


def _leveled_kernel(text: str, head: str) -> Fields | None:
    """A kernel record after a syslog level token ("… kern.crit kernel: text"), its wall
    clock from the stamp before it when there is one."""
    k = _LEVELED_KERNEL.search(head)
    if k is None or k.start() > 100:
        return None
    if k["pri"] is not None:
        pri = int(k["pri"])
        if pri >> 3:  # another facility than the kernel's: a program wrote "kernel:"
            return None
        level = pri & 7
    else:
        level = _LEVELS[k["name"]]
    wall, md = None, None
    if (t := _TIME.search(head, 0, k.start() + 1)) is not None:
        wall, md = _wall(head[: t.start()], t["time"], t["frac"])
    msg = text[k.end() :]
    e = _STAMP.match(msg)  # "kernel: [ 12.3] text"
    stamp = usec(e[2], e[3]) if e is not None else None
    msg = msg[e.end() :] if e is not None else msg
    return Fields(LogFormat.LOOSE, msg, stamp, wall, level, 0, month_day=md)


def k8s_event(text: str) -> re.Match[str] | None:
    """A row of a Kubernetes events table (`kubectl describe`, `kubectl get events`)."""
    return _K8S_EVENT.match(text) if text[:1] in "NW<0123456789" else None


def _looks_like_message(prefix: str) -> bool:
    """A stamp after kernel wording is part of the message (a glued second line is split
    elsewhere); after a host, a date or a console name it ends a prefix."""
    return kernelish(prefix.lstrip("[")) and not prefix.rstrip().endswith(("kernel:", "]"))


def _after_stamp(rest: str, wall: int | None, md: tuple[int, int] | None) -> Fields | None:
    if rest[:3] == "cpu" and _VMKERNEL_WORLD.match(rest) is not None:
        return Fields(LogFormat.LOOSE, rest, None, wall, facility=0, month_day=md)
    s = _STAMP.match(rest)
    if s is not None:  # rsyslog's "kernel: [ 12.3]" with the host cut off
        ts = usec(s[2], s[3])
        return Fields(LogFormat.LOOSE, rest[s.end() :], ts, wall, facility=0, month_day=md)
    k = _KERNEL_WORD.match(rest)
    if k is None:
        w = _WHO.match(rest)
        if w is not None and w[2].lower() in ("kernel", "kern"):
            k = w
        elif w is not None and w[3]:  # "ident[pid]: text": another program's line
            host, ident, pid = w[1] or "", w[2], w[3]
            msg = f"{ident}[{pid}]: {rest[w.end() :]}"
            return Fields(
                LogFormat.LOOSE,
                msg,
                None,
                wall,
                facility=3,
                host=host,
                ident=ident,
                pid=pid,
                month_day=md,
            )
    if k is None and (h := _HOST_WORD.match(rest)) is not None:
        body = rest[h.end() :]
        if kernel_opening(body) and not kernel_opening(rest):
            # "host NVRM: Xid …", "host amdgpu 0000:03:00.0: …": a syslog line that lost
            # its "kernel:", told by the message's opening (origin.py)
            return Fields(LogFormat.LOOSE, body, None, wall, facility=0, host=h[1], month_day=md)
        if body[:1].isdigit() and (rec := parse_kmsg(body)) is not None:
            # a forwarder that wrote /dev/kmsg records verbatim: "host 6,16628,403…,-;text"
            return rec._replace(fmt=LogFormat.LOOSE, wall_us=wall, host=h[1], month_day=md)
    if k is not None:
        msg = rest[k.end() :]
        e = _STAMP.match(msg)
        stamp = usec(e[2], e[3]) if e is not None else None
        msg = msg[e.end() :] if e is not None else msg
        return Fields(LogFormat.LOOSE, msg, stamp, wall, facility=0, month_day=md)
    if not kernelish(rest):  # a time in prose, or another program's line without a pid
        return None
    return Fields(LogFormat.LOOSE, rest, None, wall, month_day=md)
