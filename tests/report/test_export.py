"""Fleet exports: the node_exporter textfile through Prometheus' own parser, journal fields,
saved reports."""

from __future__ import annotations

import dataclasses
import os
import stat
import time
from pathlib import Path

import pytest

from kmsgd import outputs
from kmsgd.fleet import entry_format as fleet_entry
from kmsgd.outputs import Metrics
from kmsgd.report import export
from kmsgd.types import Outcome

parser = pytest.importorskip(
    "prometheus_client.parser", reason="prometheus-client not installed (test extra)"
)


def parse(text: str) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    """{metric name: {sorted labels: value}} as Prometheus' text parser reads the file."""
    out: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
    for family in parser.text_string_to_metric_families(text):
        for sample in family.samples:
            out.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return out


def types(text: str) -> dict[str, str]:
    return {f.name: f.type for f in parser.text_string_to_metric_families(text)}


RECORDER = Metrics(up=True, ring_bytes=64 << 20, lost_total=3323)
LAST_BOOT = export.LastBoot(
    boot_id="4f1c2a9e8b7d4c3a9e1f0b2c3d4e5f60",
    outcome="hard_freeze",
    confidence="medium",
    primary_tag="amdgpu_smu_timeout",
    fingerprint="9a3584e1eeb4d620",
    end_wall_us=1_764_400_219_500_000,
    judged_wall_us=1_764_400_900_000_000,
)


def test_recorder_textfile_parses() -> None:
    text = outputs.render_textfile(RECORDER)
    got = parse(text)
    assert got == {
        "kmsgd_up": {(): 1.0},
        "kmsgd_ring_bytes": {(): float(64 << 20)},
        # The parser reports a counter family without _total; its sample keeps the full name.
        "kmsgd_ring_records_lost_total": {(): 3323.0},
    }
    assert types(text)["kmsgd_ring_records_lost"] == "counter"
    assert types(text)["kmsgd_up"] == "gauge"


def test_last_boot_textfile_parses_with_info_and_timestamps() -> None:
    text = export.render_last_boot(LAST_BOOT)
    got = parse(text)
    assert "kmsgd_up" not in got  # only the recorder says whether it is up
    assert got["kmsgd_last_boot_info"] == {
        (
            ("boot_id", LAST_BOOT.boot_id),
            ("confidence", "medium"),
            ("fingerprint", "9a3584e1eeb4d620"),
            ("outcome", "hard_freeze"),
            ("primary", "amdgpu_smu_timeout"),
        ): 1.0
    }
    assert (
        types(text)["kmsgd_last_boot_info"] == "gauge"
    )  # 0.0.4 has no info type: the suffix says it
    outcome = got["kmsgd_last_boot_outcome"]
    assert outcome[(("outcome", "hard_freeze"),)] == 1.0 and sum(outcome.values()) == 1.0
    assert {dict(k)["outcome"] for k in outcome} == {o.value for o in Outcome}
    assert got["kmsgd_last_boot_clean"] == {(): 0.0}
    assert got["kmsgd_last_boot_end_timestamp_seconds"] == {(): 1_764_400_219.5}
    assert got["kmsgd_last_boot_report_timestamp_seconds"] == {(): 1_764_400_900.0}


def test_no_primary_unknown_end_and_a_future_outcome() -> None:
    m = dataclasses.replace(LAST_BOOT, outcome="brownout", primary_tag=None, end_wall_us=None)
    got = parse(export.render_last_boot(m))
    assert dict(next(iter(got["kmsgd_last_boot_info"])))["primary"] == "none"
    assert got["kmsgd_last_boot_outcome"][(("outcome", "brownout"),)] == 1.0
    assert "kmsgd_last_boot_end_timestamp_seconds" not in got


def test_a_clean_end_is_clean() -> None:
    got = parse(export.render_last_boot(dataclasses.replace(LAST_BOOT, outcome="clean_reboot")))
    assert got["kmsgd_last_boot_clean"] == {(): 1.0}


def test_label_values_are_escaped() -> None:
    m = dataclasses.replace(LAST_BOOT, primary_tag='a"b\\c\nd')
    got = parse(export.render_last_boot(m))
    assert dict(next(iter(got["kmsgd_last_boot_info"])))["primary"] == 'a"b\\c\nd'


def test_write_is_atomic_and_world_readable(tmp_path: Path) -> None:
    path = tmp_path / "kmsgd.prom"
    old = os.umask(0o027)  # the units' UMask; node_exporter must still read the file
    try:
        outputs.write_textfile(path, outputs.render_textfile(RECORDER))
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kmsgd.prom"]  # no temp file left
    assert parse(path.read_text())["kmsgd_up"] == {(): 1.0}


def test_rename_replaces_the_inode(tmp_path: Path) -> None:
    # A scrape that opened the old file keeps reading a whole old file: the writer never
    # truncates in place, it renames a new inode over it.
    path = tmp_path / "kmsgd.prom"
    outputs.write_textfile(path, outputs.render_textfile(RECORDER))
    with path.open() as reader:
        before = path.stat().st_ino
        outputs.write_textfile(path, outputs.render_textfile(Metrics(False, 1, 0)))
        assert path.stat().st_ino != before
        assert parse(reader.read())["kmsgd_up"] == {(): 1.0}


def test_missing_collector_directory_raises(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        outputs.write_textfile(tmp_path / "absent" / "kmsgd.prom", "kmsgd_up 1\n")


def test_journal_fields() -> None:
    fields = export.journal_fields(
        boot_id="4f1c2a9e8b7d4c3a9e1f0b2c3d4e5f60",
        outcome="hard_freeze",
        confidence="high",
        headline="hard freeze at 14:02:37 ± 1 s;\nlast kernel line 2 m 30 s earlier",
        primary_tag="amdgpu_smu_timeout",
        fingerprint="kf1-8c1e",
        report_path="/var/lib/kmsgd/reports/4f1c2a9e8b7d4c3a9e1f0b2c3d4e5f60.md",
    )
    assert fields["MESSAGE_ID"] == fleet_entry.MESSAGE_ID
    assert "\n" not in fields["MESSAGE"]
    assert fields["MESSAGE"].startswith("kmsgd: boot 4f1c2a9e ended: hard_freeze (high)")
    assert fields["PRIORITY"] == "4"
    assert fields["KMSGD_PRIMARY"] == "amdgpu_smu_timeout"
    assert all(k.isupper() and v is not None for k, v in fields.items())
    clean = export.journal_fields(
        boot_id="0" * 32,
        outcome="clean_reboot",
        confidence="high",
        headline="clean reboot",
        primary_tag=None,
        fingerprint="",
    )
    assert clean["PRIORITY"] == "5"
    assert "KMSGD_REPORT" not in clean


def test_message_id_is_the_one_in_the_unit() -> None:
    unit = (Path(__file__).resolve().parents[2] / "units" / "kmsgd-report.service").read_text()
    assert f"MESSAGE_ID={fleet_entry.MESSAGE_ID}" in unit
    assert len(fleet_entry.MESSAGE_ID) == 32
    int(fleet_entry.MESSAGE_ID, 16)


def boot(n: int) -> str:
    return f"{n:032x}"


def test_save_report_keeps_the_newest(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    now = time.time()
    for n in range(5):
        written = export.save_report(reports, boot(n), {"json": "{}", "md": "# r"}, keep=3)
        for p in written:  # mtimes one minute apart, oldest first
            os.utime(p, (now - 600 + 60 * n, now - 600 + 60 * n))
    names = sorted(p.name for p in reports.iterdir())
    assert names == sorted(f"{boot(n)}.{ext}" for n in (2, 3, 4) for ext in ("json", "md"))
    assert stat.S_IMODE((reports / f"{boot(4)}.md").stat().st_mode) == 0o640


def test_save_report_rejects_a_path_as_boot_id(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        export.save_report(tmp_path, "../../etc/passwd", {"json": "{}"})


def test_pruning_leaves_files_that_are_not_kmsgd_reports(tmp_path: Path) -> None:
    """A --save-dir that holds other documents: only `<boot_id>.{json,md,html}` are pruned."""
    reports = tmp_path / "reports"
    reports.mkdir()
    others = ["notes.md", "runbook.json", f"{boot(99)}.txt", f"{boot(98)}.json.bak", "x.html"]
    others += [f"{7:031x}.json", f"{boot(0xABC).upper()}.md", f"{boot(96)}-copy.md"]
    for name in others:
        (reports / name).write_text("mine")
        os.utime(reports / name, (1.0, 1.0))  # older than every report
    for n in range(4):
        export.save_report(reports, boot(n), {"json": "{}", "md": "# r", "html": "<p>"}, keep=2)
    left = sorted(p.name for p in reports.iterdir())
    mine = sorted(f"{boot(n)}.{ext}" for n in (2, 3) for ext in ("json", "md", "html"))
    assert left == sorted(others + mine)


def test_save_report_refuses_to_keep_nothing(tmp_path: Path) -> None:
    for keep in (0, -1):
        with pytest.raises(ValueError):
            export.save_report(tmp_path, boot(1), {"json": "{}"}, keep=keep)
    assert list(tmp_path.iterdir()) == []


def test_a_link_planted_at_a_report_name_is_replaced_not_followed(tmp_path: Path) -> None:
    """Saving never writes through a link planted in the report directory, and pruning
    removes kmsgd's own names only, never a link's target."""
    victim = tmp_path / "victim"
    victim.write_text("secret\n")
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / f"{boot(1)}.md").symlink_to(victim)
    (reports / f"{boot(0)}.json").symlink_to(victim)
    os.utime(reports / f"{boot(0)}.json", (1.0, 1.0), follow_symlinks=False)
    export.save_report(reports, boot(1), {"json": "{}", "md": "# r"}, keep=1)
    assert victim.read_text() == "secret\n"
    assert not (reports / f"{boot(1)}.md").is_symlink()
    assert (reports / f"{boot(1)}.md").read_text() == "# r"
