"""The outcome rules of the classifier: an explicit ordered list of small functions.

Each rule reads a `Context` (the boot's timeline, the next boot's early lines, the culprit
found so far) and returns a `Decision` or None; the first decision wins. Each says in its
docstring which kernel evidence it uses. `classify.py` runs them and catches what they raise.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from kmsgd.catalogue.hardware import EARLY_US
from kmsgd.catalogue.reset import decode_reset
from kmsgd.catalogue.tags import Tag
from kmsgd.judge import chains
from kmsgd.judge.timeline import Item, TagStats, Timeline
from kmsgd.logparse.parsed import EVIDENCE_ORIGINS, Origin
from kmsgd.types import WORDS, Confidence, Outcome, Subject

END_LINES = 40  # a shutdown marker must be this close to the end to count
SHUTDOWN_HANG = "during_shutdown"  # the reason of a freeze after the shutdown began
PREVIOUS_END_TAGS = (Tag.RESET_REASON, Tag.JOURNAL_UNCLEAN, Tag.FS_RECOVERY, Tag.MCE_LOGGED_AT_BOOT)
LOCKUP_TAGS = (Tag.HARD_LOCKUP, Tag.SOFT_LOCKUP, Tag.RCU_STALL, Tag.HUNG_TASK)
D = TypeVar("D")
MEMORY_TAGS = (Tag.OOM_KILL, Tag.OOMD_KILL, Tag.PAGE_ALLOCATION_FAILURE)


@dataclass(frozen=True, slots=True)
class Evidence:
    why: str
    item: Item | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    """What one rule concluded."""

    outcome: Outcome
    reason: str
    confidence: Confidence
    summary: str  # the outcome in words, start of the headline
    evidence: tuple[Evidence, ...] = ()
    subject: Subject = Subject.THIS_BOOT  # a log's start may speak of the boot before
    says_reason: bool = False  # the summary already says the reason in words
    culprit: TagStats | None = None  # the event this decision rests on, when it names one


@dataclass(frozen=True, slots=True)
class RuleError:
    where: str
    error: str


def first_decision(
    rules: Sequence[Callable[..., D | None]], *args: Any, errors: list[RuleError]
) -> D | None:
    """Run `rules` in order on `args`; the first that decides wins. A rule that raises is
    recorded in `errors` and skipped: one broken rule must not cost the report."""
    for rule in rules:
        try:
            decision = rule(*args)
        except Exception as err:
            errors.append(RuleError(rule.__name__.strip("_"), f"{type(err).__name__}: {err}"))
            continue
        if decision is not None:
            return decision
    return None


@dataclass
class Context:
    """What rules read. `ended`: a later boot exists, so this boot certainly ended."""

    tl: Timeline
    nxt: Timeline | None
    baseline: Mapping[str, float]
    ended: bool
    final: list[TagStats] = field(default_factory=list)
    noise: set[str] = field(default_factory=set)
    primary: TagStats | None = None
    errors: list[RuleError] = field(default_factory=list)

    def final_of(self, *tags: str) -> list[TagStats]:
        return [t for t in self.final if t.tag in tags]


def evidence_of(t: TagStats, why: str) -> Evidence:
    return Evidence(f"last {t.tag}" if why == "culprit" and t.count > 1 else why, t.last)


_PANIC_REASONS = (
    (Tag.HARD_LOCKUP, r"Hard LOCKUP|hard lockup"),
    (Tag.SOFT_LOCKUP, r"softlockup|soft lockup"),
    (Tag.HUNG_TASK, r"hung_task|hung tasks|blocked tasks"),
    (Tag.RCU_STALL, r"RCU Stall|rcu stall"),
    ("sysrq", r"sysrq"),
    ("out_of_memory", r"Out of memory|deadlocked on memory|out of memory"),
    (Tag.MCE, r"[Mm]achine check|MCE|Not all CPUs entered broadcast exception"),
    ("no_root_fs", r"Unable to mount root fs|VFS:"),
    ("init_died", r"Attempted to kill init"),
    ("warning", r"panic_on_warn"),
    (Tag.OOPS, r"Fatal exception|Oops"),
)


def rule_panic(ctx: Context) -> Decision | None:
    """`Kernel panic - not syncing: <why>` is terminal; the text after it names the reason."""
    panics = (
        ctx.tl.stats(Tag.KERNEL_PANIC)
        or ctx.tl.stats(Tag.SYSRQ_CRASH)
        or ctx.tl.stats(Tag.XEN_HYPERVISOR_PANIC)  # Xen's panic() stops the host as well
    )
    if not panics:
        return None
    p = panics[-1]
    text = p.first.line.record.message
    why = text.split("not syncing:", 1)[-1]
    reason = next((r for r, rx in _PANIC_REASONS if re.search(rx, why)), "")
    if not reason and ctx.primary is not None and chains.caused_by(p, [ctx.primary]):
        reason = ctx.primary.tag  # the report or watchdog whose panic this is
    return Decision(
        Outcome.KERNEL_PANIC,
        reason or "other",
        Confidence.HIGH,
        "Kernel panic",
        (evidence_of(p, "kernel panic"),),
    )


def rule_thermal(ctx: Context) -> Decision | None:
    """thermal_critical in the final window ("critical temperature reached … shutting down",
    amdgpu "SW CTF"), or else hw_protection_shutdown: the kernel or firmware powered off to
    protect the hardware."""
    hot = ctx.final_of(Tag.THERMAL_CRITICAL)
    if not hot:
        # kernel/reboot.c hw_protection_shutdown without the thermal zone's line (a cut, or
        # a regulator or battery's reason): the kernel powered off to protect the hardware,
        # and the orderly shutdown it starts prints the clean end's markers after it
        guard = ctx.final_of(Tag.HW_PROTECTION_SHUTDOWN)
        if not guard:
            return None
        return Decision(
            Outcome.THERMAL_SHUTDOWN,
            Tag.HW_PROTECTION_SHUTDOWN.value,
            Confidence.HIGH,
            "Hardware protection shutdown",
            tuple(evidence_of(t, "hardware protection shutdown") for t in guard),
        )
    return Decision(
        Outcome.THERMAL_SHUTDOWN,
        "critical_temperature",
        Confidence.HIGH,
        "Thermal shutdown",
        tuple(evidence_of(t, "critical temperature") for t in hot),
    )


def rule_watchdog(ctx: Context) -> Decision | None:
    """softdog's `Initiating system reboot` in the final window: nothing pinged /dev/watchdog
    in time and the driver called emergency_restart() (drivers/watchdog/softdog.c
    softdog_fire), a reset with no shutdown. Its `Initiating panic` ends in a panic, which
    rule_panic reads; `Triggered - Reboot ignored` (soft_noboot) resets nothing."""
    fired = [
        t
        for t in ctx.final_of(Tag.WATCHDOG_EXPIRED)
        if _WATCHDOG_RESET.search(t.last.line.record.message)
    ]
    if not fired:
        return None
    return Decision(
        Outcome.WATCHDOG_RESET,
        "softdog_expired",
        Confidence.HIGH,
        "Watchdog reset",
        tuple(evidence_of(t, "watchdog reset") for t in fired),
    )


_WATCHDOG_RESET = re.compile(r"Initiating system reboot")


# "Using hardware watchdog": systemd-shutdown arms it for reboot and kexec only
# (kmsgd/catalogue/lifecycle.py)
_REBOOT_WORDS = re.compile(
    # "Reboot" as a word: PID 1's "Reached target Reboot." and "Starting Reboot..." (the
    # reboot.target and systemd-reboot.service descriptions before "System Reboot")
    r"Restarting system|Rebooting|is rebooting|reboot\.target|\bReboot\b|[Kk]exec"
    r"|Starting new kernel"
    r"|Using hardware watchdog"
    # shutdown(8)'s syslog line of a BSD-style reboot ("reboot by root: ", "rebooted by …")
    r"|\breboot(?:ed)? by \S+:"
)
_POWEROFF_WORDS = re.compile(
    r"Power-?[Oo]ff|Power down|Power Off|[Pp]owering (?:off|down)|[Hh]alt|poweroff"
)


def rule_shutdown_hang(ctx: Context) -> Decision | None:
    """A lockup, RCU stall or hung task after the shutdown began (systemd-shutdown's lines,
    `reboot: Restarting system`, `reboot: Power down`): the shutdown never finished, the box
    hung on its way down (kernel/reboot.c prints the marker, then the machine is reset or
    powered off; a watchdog report after it means it was not). Init's own lines count too
    where a paste has them as unparsed text: a console without systemd (sysvinit's and
    BusyBox's shutdown messages have no prefix a reader could take for a log's), since the
    kernel's lockup report after them is the evidence."""
    ev = [i for i in ctx.tl.tail if i.line.origin in EVIDENCE_ORIGINS]
    marks = [
        i
        for i in ctx.tl.tail
        if Tag.CLEAN_SHUTDOWN_MARKER in i.tags
        and (i.line.origin in EVIDENCE_ORIGINS or i.line.origin is Origin.TEXT)
    ]
    begun = marks[0].pos if marks else None
    if begun is None:
        return None
    after = {tag for i in ev if i.pos > begun for tag in i.tags if tag in LOCKUP_TAGS}
    hung = [t for t in ctx.final if t.tag in after]
    lockup = chains.primary(hung, ctx.tl.tail)
    if lockup is None:
        return None
    return Decision(
        Outcome.HARD_FREEZE,
        SHUTDOWN_HANG,
        Confidence.MEDIUM,
        f"Hard freeze during shutdown: {lockup.tag} after the shutdown began",
        (evidence_of(lockup, "culprit"),),
        says_reason=True,
        culprit=lockup,
    )


def rule_clean_end(ctx: Context) -> Decision | None:
    """The shutdown sequence within the last END_LINES lines: only the end counts (a marker in
    the middle, or a grep for one, says nothing about how the boot ended)."""
    ev = [i for i in ctx.tl.tail if i.line.origin in EVIDENCE_ORIGINS]
    last = ev[-END_LINES:]
    marks = [i for i in last if Tag.CLEAN_SHUTDOWN_MARKER in i.tags]
    if not marks:
        return None
    text = " ".join(i.line.record.message for i in marks)
    evidence = tuple(Evidence("shutdown sequence", i) for i in marks[-3:])
    if _REBOOT_WORDS.search(text):
        return Decision(Outcome.CLEAN_REBOOT, "", Confidence.HIGH, "Clean reboot", evidence)
    strength = Confidence.HIGH if _POWEROFF_WORDS.search(text) else Confidence.MEDIUM
    return Decision(Outcome.CLEAN_SHUTDOWN, "", strength, "Clean shutdown", evidence)


def previous_end(
    src: Timeline | None,
) -> tuple[list[TagStats], list[tuple[int, str, str, Outcome]]]:
    if src is None:
        return [], []
    found = [t for t in src.tags if t.tag in PREVIOUS_END_TAGS]
    bits: list[tuple[int, str, str, Outcome]] = []
    for t in found:
        if t.tag == Tag.RESET_REASON and not bits:
            m = t.hit.signature.pattern.search(t.first.line.record.message)
            if m is not None:
                bits = decode_reset(int(m.group("bits"), 16))
    return found, bits


def _next_boot_decision(
    found: list[TagStats], bits: list[tuple[int, str, str, Outcome]], ctx: Context
) -> Decision | None:
    evidence = tuple(evidence_of(t, f"next boot: {t.tag}") for t in found)
    if bits and bits[0][3] is not Outcome.UNKNOWN:
        bit, key, words, outcome = bits[0]
        return Decision(
            outcome,
            f"amd_reset:{key}",
            Confidence.HIGH
            if outcome in (Outcome.WATCHDOG_RESET, Outcome.THERMAL_SHUTDOWN)
            else Confidence.MEDIUM,
            f"Reset without a shutdown; the CPU reset status says: {words} (bit {bit})",
            evidence,
            says_reason=True,
        )
    if any(t.tag == Tag.MCE_LOGGED_AT_BOOT for t in found):
        return Decision(
            Outcome.ABRUPT_RESET_OR_POWER_LOSS,
            Tag.MCE_LOGGED_AT_BOOT,
            Confidence.LOW,
            "Abrupt reset with machine-check errors logged at the next boot",
            evidence,
        )
    return None


def rule_reset_reason(ctx: Context) -> Decision | None:
    """The next boot's early lines: the AMD FCH reset status decoded by bit, or machine-check
    errors logged at boot."""
    found, bits = previous_end(ctx.nxt)
    return _next_boot_decision(found, bits, ctx) if found else None


def _stuck(ctx: Context, tags: Sequence[str], outcome: Outcome, what: str) -> Decision | None:
    hits = ctx.final_of(*tags)
    if not hits:
        return None
    first = min(hits, key=lambda t: (t.hit.signature.rank, t.first.pos))
    if not ctx.ended:
        # the end is not in the log: name what it ends on, the culprit first
        last_words = ctx.primary.tag if ctx.primary is not None else first.tag
        return Decision(
            Outcome.UNKNOWN,
            f"log_ends_after:{last_words}",
            Confidence.LOW,
            f"The log ends after {what}; it does not show how the boot ended",
            (evidence_of(first, what),),
        )
    return Decision(
        outcome,
        first.tag,
        Confidence.MEDIUM,
        f"{WORDS[outcome]} after {what}",
        (evidence_of(first, what),),
    )


def rule_memory(ctx: Context) -> Decision | None:
    """OOM kills (kernel or systemd-oomd) in the final window, the boot then ending."""
    return _stuck(ctx, MEMORY_TAGS, Outcome.HANG_MEMORY_EXHAUSTION, "the OOM killer fired")


def rule_lockup(ctx: Context) -> Decision | None:
    """Soft/hard lockups, RCU stalls or hung tasks in the final window, then nothing."""
    return _stuck(ctx, LOCKUP_TAGS, Outcome.HARD_FREEZE, "a CPU lockup or stall")


def rule_culprit_at_end(ctx: Context) -> Decision | None:
    """Any other serious signature in the final window, the log then stopping."""
    p = ctx.primary
    if p is None or p.hit.signature.routine:
        return None
    if not ctx.ended:
        return Decision(
            Outcome.UNKNOWN,
            f"log_ends_after:{p.tag}",
            Confidence.LOW,
            "The log ends without a shutdown or panic",
            (evidence_of(p, "culprit"),),
        )
    return Decision(
        Outcome.HARD_FREEZE,
        p.tag,
        Confidence.LOW,
        "Likely hard freeze: the boot ended without shutdown or panic",
        (evidence_of(p, "culprit"),),
    )


def rule_unclean(ctx: Context) -> Decision | None:
    """A later boot exists (or says the journal/filesystems were not closed) but this boot
    shows no end: unknown, with that evidence."""
    found, _ = previous_end(ctx.nxt)
    if not (ctx.ended or found):
        return None
    evidence = tuple(evidence_of(t, f"next boot: {t.tag}") for t in found)
    return Decision(
        Outcome.UNKNOWN,
        "ended_without_shutdown",
        Confidence.LOW,
        "Ended without a shutdown sequence; the log cannot tell a freeze from a power loss",
        evidence,
    )


Rule = Callable[[Context], Decision | None]
RULES: tuple[Rule, ...] = (
    rule_panic,
    rule_thermal,
    rule_watchdog,
    rule_shutdown_hang,
    rule_clean_end,
    rule_reset_reason,
    rule_memory,
    rule_lockup,
    rule_culprit_at_end,
    rule_unclean,
)


def previous_boot_decision(ctx: Context) -> Decision | None:
    """A single boot with no visible end whose start speaks of the boot before it."""
    found, bits = previous_end(ctx.tl)
    # the start of a boot: its first lines, and where printk stamps say, its first minutes
    # (journald renaming a user's journal at the first login hours later is not about it).
    # A file system's log replay is exempt from the minutes: a data volume mounted by hand
    # or by a late unit (fs/xfs/xfs_log_recover.c, fs/ext4/super.c print at mount, whenever
    # it is) replays because it was not cleanly unmounted, which is the same word on the end
    early = [
        t
        for t in found
        if t.first.pos < 2000
        and (t.tag == Tag.FS_RECOVERY or (t.first.line.ts_usec or 0) < EARLY_US)
    ]
    if not early:
        return None
    d = _next_boot_decision(early, bits, ctx) or Decision(
        Outcome.UNKNOWN,
        "unclean_end",
        Confidence.LOW,
        "did not shut down cleanly",
        tuple(evidence_of(t, t.tag) for t in early),
    )
    return Decision(
        d.outcome,
        d.reason,
        d.confidence,
        f"The boot before this log: {d.summary}",
        d.evidence,
        subject=Subject.PREVIOUS_BOOT,
    )
