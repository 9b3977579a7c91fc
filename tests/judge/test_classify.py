"""The verdict from text: outcome rules, causal-chain culprit, noise, next-boot evidence."""

from __future__ import annotations

from pathlib import Path

import pytest

import kmsgd.judge.classify as classify_mod
from kmsgd.commands.analyze import analyze_report
from kmsgd.judge.classify import Confidence, classify
from kmsgd.judge.timeline import Timeline
from kmsgd.report.model import Report
from kmsgd.ring.records import KernelRecord
from kmsgd.types import Outcome, Subject

DATA = Path(__file__).parents[1] / "data" / "logs"


def report(name: str) -> Report:
    with (DATA / name).open("rb") as f:
        return analyze_report(f, name=name)[0]


def recs(*lines: str, start_s: float = 100.0, step_s: float = 1.0) -> list[KernelRecord]:
    out = []
    for i, line in enumerate(lines):
        fac = 3 if line.startswith("systemd") else 0
        out.append(KernelRecord(line, facility=fac, ts_usec=int((start_s + i * step_s) * 1e6)))
    return out


def test_seed_000_amdgpu_chain_names_the_smu_timeout() -> None:
    # SMU no response → MES failed → KFD quiesce failed → ring sdma0 timeout → GPU reset
    for name in ("amdgpu_chain.dmesg", "amdgpu_chain.journal"):
        r = report(name)
        assert r.primary is not None and r.primary.tag == "amdgpu_smu_timeout", name
        assert r.primary.device == "0000:05:00.0"
        finals = {s.tag for s in r.signatures if s.in_final_window}
        assert {"amdgpu_mes_timeout", "amdgpu_ring_timeout", "amdgpu_gpu_reset"} <= finals


def test_chain_with_next_boot_is_an_unclean_end_not_a_clean_one() -> None:
    r = report("amdgpu_chain.journal")
    assert r.outcome is Outcome.HARD_FREEZE and r.confidence == "low"
    whys = [e.why for e in r.evidence]
    assert "next boot: journal_unclean" in whys and "next boot: fs_recovery" in whys
    assert r.time_of_death is not None and r.time_of_death.silence_s == pytest.approx(198.705)


def test_a_single_boot_that_just_stops_is_unknown_with_what_it_shows() -> None:
    r = report("amdgpu_chain.dmesg")
    assert r.outcome is Outcome.UNKNOWN
    assert r.reason == "log_ends_after:amdgpu_smu_timeout"


def test_lockup_before_the_panic_it_causes() -> None:
    r = report("panic_soft_lockup.dmesg")
    assert (r.outcome, r.reason, r.confidence) == (Outcome.KERNEL_PANIC, "soft_lockup", "high")
    assert r.primary is not None and r.primary.tag == "soft_lockup"  # not nvme_timeout 1 h before


def test_fatal_aer_before_the_xid_79_it_causes() -> None:
    r = report("aer_xid79.journal")
    assert r.primary is not None and r.primary.tag == "aer_fatal"
    assert r.primary.device == "0000:3d:00.0"
    tags = {s.tag for s in r.signatures}
    assert {"nvidia_xid_79", "gpu_fell_off_bus", "aer_corrected"} <= tags


def test_memory_exhaustion_with_next_boot() -> None:
    r = report("oom_hang.journal")
    assert r.outcome is Outcome.HANG_MEMORY_EXHAUSTION
    assert r.primary is not None and r.primary.tag == "oom_kill" and r.primary.count == 3


def test_reset_reason_of_next_boot_decides_and_the_chain_is_still_named() -> None:
    r = report("reset_watchdog.dmesg")
    assert (r.outcome, r.reason) == (Outcome.WATCHDOG_RESET, "amd_reset:watchdog")
    assert r.primary is not None and r.primary.tag == "amdgpu_vm_fault"
    assert r.source is not None and (r.source.boots, r.source.boot_index) == (2, 0)


def test_single_boot_log_can_speak_about_the_boot_before() -> None:
    r = analyze_report(
        __import__("io").BytesIO(
            b"[    0.000000] Linux version 6.16.3-arch1-1 (linux@archlinux) #1 SMP\n"
            b"[    0.104412] x86/amd: Previous system reset reason [0x08000000]: an uncorrected "
            b"error caused a data fabric sync flood event\n"
            b"[   12.000000] r8169 0000:0b:00.0 enp11s0: Link is Up - 1Gbps/Full\n"
        ),
        name="x",
    )[0]
    assert r.subject == "previous_boot"
    assert (r.outcome, r.reason) == (Outcome.ABRUPT_RESET_OR_POWER_LOSS, "amd_reset:sync_flood")


def test_thermal_shutdown() -> None:
    r = report("thermal.dmesg")
    assert r.outcome is Outcome.THERMAL_SHUTDOWN
    assert r.primary is not None and r.primary.tag == "thermal_critical"  # not the throttling


def test_routine_warnings_alone_are_reported_but_not_blamed_for_an_outcome() -> None:
    r = report("workqueue_noise.dmesg")
    assert r.outcome is Outcome.UNKNOWN and r.reason == "no_end_in_log"
    assert r.primary is not None and r.primary.routine
    assert "Only routine warnings" in r.headline


def test_baseline_marks_healthy_rate_as_noise() -> None:
    with (DATA / "workqueue_noise.dmesg").open("rb") as f:
        r = analyze_report(f, name="x", baseline={"amdgpu_workqueue_hog": 6 / 7})[0]
    assert r.primary is None
    (hog,) = [s for s in r.signatures if s.tag == "amdgpu_workqueue_hog"]
    assert hog.noise and hog.baseline_per_hour == pytest.approx(6 / 7)
    with (DATA / "workqueue_noise.dmesg").open("rb") as f:
        r = analyze_report(f, name="x", baseline={"amdgpu_workqueue_hog": 0.01})[0]
    assert r.primary is not None and not r.primary.noise  # far above the healthy rate


def test_shell_commands_are_never_evidence_of_a_clean_shutdown() -> None:
    r = report("grep_false_positive.txt")
    assert r.outcome is Outcome.UNKNOWN
    assert all(s.tag != "clean_shutdown_marker" for s in r.signatures)
    assert r.source is not None and r.source.commands == 2


def test_clean_reboot_needs_the_sequence_at_the_end() -> None:
    r = report("clean_reboot.journal")
    assert (r.outcome, r.confidence) == (Outcome.CLEAN_REBOOT, "high")
    assert r.primary is None
    lines = (DATA / "clean_reboot.journal").read_text().splitlines()
    late = "\n".join(
        lines
        + [
            f"Feb 20 18:3{i // 10}:{i % 10}0 gpu-box-07 kernel: amdgpu: "
            "ring gfx_0.0.0 uses VM inv eng 0"
            for i in range(60)
        ]
    )
    r = analyze_report(__import__("io").BytesIO(late.encode()), name="x")[0]
    assert r.outcome is not Outcome.CLEAN_REBOOT  # 60 kernel lines after "Journal stopped"


def test_classifier_works_on_ring_records_alone() -> None:
    tl = Timeline.from_records(
        recs(
            "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.127.05",
            "BUG: kernel NULL pointer dereference, address: 0000000000000008",
            "Oops: 0002 [#1] PREEMPT SMP NOPTI",
            "Kernel panic - not syncing: Fatal exception",
        )
    )
    v = classify(tl)
    assert (v.outcome, v.reason, v.confidence) == (Outcome.KERNEL_PANIC, "oops", Confidence.HIGH)
    assert v.primary is not None and v.primary.tag == "oops"


def test_next_boot_records_and_clean_ring_shutdown() -> None:
    tl = Timeline.from_records(
        recs(
            "soft: nothing", "watchdog: BUG: soft lockup - CPU#3 stuck for 23s! [llama-server:4187]"
        )
    )
    nxt = recs("Linux version 6.8.0", "EXT4-fs (nvme0n1p2): recovery complete", start_s=0.5)
    v = classify(tl, next_boot=nxt)
    assert (v.outcome, v.reason) == (Outcome.HARD_FREEZE, "soft_lockup")
    clean = Timeline.from_records(
        recs("systemd-shutdown[1]: Syncing filesystems and block devices.", "reboot: Power down")
    )
    assert classify(clean).outcome is Outcome.CLEAN_SHUTDOWN


def test_a_rule_that_raises_is_reported_and_the_verdict_still_comes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(ctx: object) -> None:
        raise RuntimeError("rule bug")

    monkeypatch.setattr(classify_mod, "RULES", (broken, *classify_mod.RULES))
    r = report("panic_soft_lockup.dmesg")
    assert r.outcome is Outcome.KERNEL_PANIC
    assert [(e.where, e.error) for e in r.errors] == [("broken", "RuntimeError: rule bug")]


GOLDEN = [
    # file, format the parser must detect, outcome, reason, primary tag
    (
        "amdgpu_chain.dmesg",
        "dmesg",
        "unknown",
        "log_ends_after:amdgpu_smu_timeout",
        "amdgpu_smu_timeout",
    ),
    ("amdgpu_chain.journal", "journal", "hard_freeze", "amdgpu_smu_timeout", "amdgpu_smu_timeout"),
    ("aer_xid79.journal", "journal", "unknown", "log_ends_after:aer_fatal", "aer_fatal"),
    ("clean_reboot.journal", "journal", "clean_reboot", "", None),
    ("grep_false_positive.txt", "journal", "unknown", "no_end_in_log", "amdgpu_workqueue_hog"),
    ("oom_hang.journal", "journal", "hang_memory_exhaustion", "oom_kill", "oom_kill"),
    ("panic_soft_lockup.dmesg", "dmesg", "kernel_panic", "soft_lockup", "soft_lockup"),
    ("reset_watchdog.dmesg", "dmesg", "watchdog_reset", "amd_reset:watchdog", "amdgpu_vm_fault"),
    ("thermal.dmesg", "dmesg", "thermal_shutdown", "critical_temperature", "thermal_critical"),
    ("workqueue_noise.dmesg", "dmesg", "unknown", "no_end_in_log", "amdgpu_workqueue_hog"),
    ("messy_paste.txt", "dmesg", "unknown", "log_ends_after:soft_lockup", "soft_lockup"),
    ("pstore_panic.txt", "dmesg", "kernel_panic", "oops", "general_protection_fault"),
    (
        "xid119_gsp.json",
        "json",
        "unknown",
        "log_ends_after:nvidia_gsp_timeout",
        "nvidia_gsp_timeout",
    ),
    ("nvme_io.dmesg-T", "dmesg-ctime", "unknown", "log_ends_after:nvme_timeout", "nvme_timeout"),
    (
        "mce.short-monotonic",
        "journal-mono",
        "abrupt_reset_or_power_loss",
        "mce_logged_at_boot",
        "mce",
    ),
    ("rcu_stall.dmesg-iso", "dmesg-iso", "unknown", "log_ends_after:rcu_stall", "rcu_stall"),
    (
        "cf9.kmsg",
        "kmsg",
        "abrupt_reset_or_power_loss",
        "amd_reset:cf9_reboot",
        "amdgpu_smu_timeout",
    ),
    ("oops.dmesg-H", "dmesg-delta", "unknown", "log_ends_after:oops", "oops"),
]


@pytest.mark.parametrize(("name", "fmt", "outcome", "reason", "primary"), GOLDEN)
def test_sample_logs(name: str, fmt: str, outcome: str, reason: str, primary: str | None) -> None:
    r = report(name)
    assert r.source is not None and r.source.formats[0] == fmt
    assert (r.outcome.value, r.reason) == (outcome, reason)
    assert (r.primary.tag if r.primary else None) == primary


def test_every_sample_log_is_in_the_golden_table() -> None:
    assert {p.name for p in DATA.iterdir()} == {g[0] for g in GOLDEN}


def test_systemd_shutdown_in_dmesg_with_the_reboot_watchdog_is_a_clean_reboot() -> None:
    """systemd-shutdown arms the hardware watchdog for reboot and kexec only."""
    seq = [
        "systemd-shutdown[1]: Sending SIGKILL to remaining processes...",
        "systemd-shutdown[1]: All filesystems unmounted.",
        "systemd-shutdown[1]: All swaps deactivated.",
    ]
    dog = "systemd-shutdown[1]: Using hardware watchdog 'iTCO_wdt', version 0, device /dev/watchdog"
    for lines, outcome in (([dog, *seq], Outcome.CLEAN_REBOOT), (seq, Outcome.CLEAN_SHUTDOWN)):
        records = [KernelRecord(m, None, None, None, n * 1000, "-") for n, m in enumerate(lines)]
        assert classify(Timeline.from_records(records), ended=True).outcome is outcome


def test_only_the_start_of_a_boot_speaks_of_the_boot_before() -> None:
    """journald renaming a journal file left open: at boot it is about the boot before; a
    user's journal renamed at the first login ten minutes later does not turn the verdict
    away from this boot's own machine check."""
    unclean = (
        "systemd-journald[1971]: File /var/log/journal/x/user-1000.journal corrupted or "
        "uncleanly shut down, renaming and replacing."
    )
    mce = "mce: [Hardware Error]: CPU 0: Machine Check: 0 Bank 9: 0000000000000000"

    def verdict(unclean_s: int, *later: str) -> tuple[object, str | None]:
        lines = [(unclean_s, unclean), *((1366, m) for m in later)]
        records = [KernelRecord(m, None, None, None, s * 1_000_000, "-") for s, m in lines]
        v = classify(Timeline.from_records(records))
        return v.subject, v.primary.tag if v.primary else None

    assert verdict(597, mce) == (Subject.THIS_BOOT, "mce")
    assert verdict(12) == (Subject.PREVIOUS_BOOT, "journal_unclean")
    # a failure of the boot's own: the verdict stays on it, its start is evidence beside it
    assert verdict(12, mce) == (Subject.THIS_BOOT, "mce")


def test_softdog_reboot_is_a_watchdog_reset_with_the_stall_that_starved_it_as_culprit() -> None:
    tl = Timeline.from_records(
        recs(
            "INFO: task jbd2/nvme0n1p2-8:412 blocked for more than 122 seconds.",
            "softdog: Initiating system reboot",
        )
    )
    v = classify(tl)
    assert (v.outcome, v.reason, v.confidence) == (
        Outcome.WATCHDOG_RESET,
        "softdog_expired",
        Confidence.HIGH,
    )
    assert v.primary is not None and v.primary.tag == "hung_task"  # what stopped the pinger


def test_softdog_that_only_warns_or_panics_is_no_watchdog_reset() -> None:
    ignored = classify(Timeline.from_records(recs("softdog: Triggered - Reboot ignored")))
    assert ignored.outcome is not Outcome.WATCHDOG_RESET
    panicked = classify(
        Timeline.from_records(
            recs(
                "softdog: Initiating panic",
                "Kernel panic - not syncing: Software Watchdog Timer expired",
            )
        )
    )
    assert panicked.outcome is Outcome.KERNEL_PANIC
