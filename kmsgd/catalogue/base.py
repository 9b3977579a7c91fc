"""The shape of a catalogue entry; the entries live in the family modules (kmsgd/catalogue/).

An entry names the kernel evidence it keys on (regex + optional check), how bad it is,
where it points (subsystem, device) and what an operator should do next. `rank` orders
causes before effects: lower ranks are further upstream in a failure chain. `formats` are the
format strings that print that evidence, copied from their source, so that every pattern can
be checked against the code that writes the lines it reads (tests/catalogue/test_formats.py
renders each one as printk would and asserts the entry tags it).
"""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Callable
from dataclasses import dataclass

from kmsgd.catalogue.tags import Tag


class Severity(enum.StrEnum):
    CRITICAL = "critical"  # the machine or a device is going down
    ERROR = "error"  # a failure that may start a chain
    WARNING = "warning"  # routine in some workloads: reported, blamed only when alone
    INFO = "info"  # lifecycle and next-boot evidence

    @property
    def order(self) -> int:
        """Worst first: the place of this severity in a report's list (critical is 0)."""
        return list(Severity).index(self)


class DeviceKind(enum.StrEnum):
    NONE = "none"
    PCI = "pci"
    DISK = "disk"
    CPU = "cpu"
    FS = "fs"


Check = Callable[[re.Match[str], "MatchInput"], bool]


@dataclass(frozen=True, slots=True)
class MatchInput:
    """What a matcher may look at: the text (for userspace lines, after "ident[pid]: "),
    the identifier (None for kernel lines) and the printk stamp."""

    text: str
    ident: str | None
    ts_usec: int | None


def nvrm_line(m: re.Match[str], i: MatchInput) -> bool:
    """An entry's check: the line is NVIDIA's driver's (it prints every message after "NVRM")."""
    return "NVRM" in i.text


@dataclass(frozen=True, slots=True)
class Trigger:
    """An entry's incident trigger (docs/operator-guide.md, *Incidents*): a kernel line of this
    signature starts an incident of class `cls` (rate-limited per class).

    `narrow`: a further regex the line must match (an uncorrected MCE, not any MCE line);
    `burst`/`window_s`: only `burst` hits within `window_s` trigger (a VM fault storm, not
    one fault); `codes`: for a family (Xid), the codes that trigger and their class. The
    recorder's own copy of this data is kmsgd/record/triggers.py, kept equal by
    tests/record/test_triggers.py.
    """

    cls: str
    narrow: str = ""
    burst: int = 1
    window_s: float = 0.0
    codes: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Format:
    """One format string that prints an entry's evidence, as its source has it.

    `fmt`: the string as the C source writes it (adjacent literals joined, macros such as
    GPFSTR expanded, the trailing newline dropped); `file`: where it is, relative to the
    source tree (the Linux kernel unless it names another project: "nvidia:" is NVIDIA's
    open-gpu-kernel-modules, "systemd:" systemd, "e2fsprogs:" e2fsprogs, "i915-backports:"
    Intel's out-of-tree i915, named by its release tag); `versions`: the
    releases whose source holds it, as checked (kernel trees 4.4, 4.19, 5.4, 5.15, 6.1, 6.8,
    6.12, 6.18; NVIDIA release tags r515-r595), a range meaning every checked release
    between its ends. `prefix`: what the printing macro puts before the message, with
    representative values (pr_fmt, dev_printk's "<driver> <device>: ", DRM's
    "[drm:<func> [amdgpu]] *ERROR* ", "NVRM: "); `program`: the userspace program that logs
    it ("" for the kernel); `args`: representative arguments, for the placeholders whose
    value the pattern reads (the render test supplies plain values for the others).
    """

    fmt: str
    file: str
    versions: str
    prefix: str = ""
    program: str = ""
    args: tuple[object, ...] = ()


@dataclass(frozen=True, slots=True)
class Signature:
    tag: str
    pattern: re.Pattern[str]
    keywords: tuple[str, ...]  # trigger words: one must occur as a whole word (prefilter)
    severity: Severity
    subsystem: str
    meaning: str
    next_step: str
    rank: int
    device_kind: DeviceKind = DeviceKind.NONE
    idents: tuple[str, ...] = ()  # userspace programs it applies to; () = kernel lines only
    check: Check | None = None
    routine: bool = False  # a warning that workloads produce daily: never blamed first
    trigger: Trigger | None = None  # starts an incident in the recorder (kernel lines only)
    timed: bool = False  # its check reads the printk stamp (MatchInput.ts_usec)
    formats: tuple[Format, ...] = ()  # the source's format strings that print this evidence
    # a line of the report of an event that another line counts (the OOM report's header, the
    # hung task's task line): it shows the event where a cut lost that line, never counts it twice
    context: bool = False

    def tag_for(self, m: re.Match[str]) -> str:
        """The tag of one match: families (nvidia_xid_<code>) derive it from the line."""
        if self.tag == Tag.NVIDIA_XID and m.groupdict().get("xid"):
            return f"nvidia_xid_{int(m.group('xid'))}"
        return self.tag


def wording(
    entry: Signature, regex: str, keywords: tuple[str, ...], **changes: object
) -> Signature:
    """Another wording of `entry`'s event: its tag, meaning, advice, rank and device copied, so
    that a module adding wording to another module's tag does not repeat that entry's text."""
    return dataclasses.replace(entry, pattern=re.compile(regex), keywords=keywords, **changes)  # type: ignore[arg-type]


def sig(
    tag: str,
    regex: str,
    keywords: tuple[str, ...],
    severity: Severity,
    subsystem: str,
    meaning: str,
    next_step: str,
    rank: int,
    **extra: object,
) -> Signature:
    """Catalogue entry builder: compiles the regex once."""
    return Signature(
        tag,
        re.compile(regex),
        keywords,
        severity,
        subsystem,
        meaning,
        next_step,
        rank,
        **extra,  # type: ignore[arg-type]
    )
