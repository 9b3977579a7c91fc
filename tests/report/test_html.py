"""`--format html` and `--plot`: the page and the picture of the played seed boots, read as
text (tests/report/test_html_browser.py opens them in Chromium)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import make_proc
from daemon import kmsgd
from nompl import hide_matplotlib
from seeds import judge, play_003, play_004

from kmsgd.cli import main
from kmsgd.commands.analyze import analyze_paths
from kmsgd.errors import BadInput
from kmsgd.judge import series as ser
from kmsgd.report import plot
from kmsgd.report.redact import Redactor
from kmsgd.report.render import render_clean
from kmsgd.report.render_html import page
from kmsgd.ring.records import Kind

needs_matplotlib = pytest.mark.skipif(
    not plot.available(), reason="the pictures need matplotlib (pip install .[plot])"
)


@needs_matplotlib
def test_seed_004_page_has_the_verdict_first_then_the_power_step(tmp_path: Path) -> None:
    rep = judge(play_004(tmp_path), series=True)
    out = page(rep)
    assert out.startswith("<!DOCTYPE html>")
    verdict, timeline = out.index('id="verdict"'), out.index('id="timeline"')
    assert verdict < out.index(f"<h1>{rep.headline}") < timeline < out.index("<svg")
    # self-contained: no script, nothing fetched (only the SVG's own #references)
    assert "<script" not in out and "Content-Security-Policy" in out
    assert not re.findall(r'(?:src|href)="(?!#)', out)
    titles = re.findall(r"<title>([^<]*)</title>", out)
    # hover: the 10 Hz reads of the step, with value and time; the cap; the time of death
    assert any(t.startswith("0000:03:00.0 ppt 10 Hz: 298.2 W at -0.200 s") for t in titles), titles[
        -20:
    ]
    assert any(t.startswith("0000:43:00.0 ppt 10 Hz: 12 W at -0.300 s") for t in titles)
    assert "power cap 289 W: 0000:03:00.0, 0000:43:00.0" in titles
    assert any(t.startswith("time of death: after +0.000 s") for t in titles)
    assert "zoom: the final 2 s" in out


@needs_matplotlib
def test_seed_003_memory_falls_to_zero_before_the_kills(tmp_path: Path) -> None:
    rep = judge(play_003(tmp_path), series=True)
    s = rep.series
    assert s is not None and s.mem_available is not None
    # MemAvailable reaches ~0 before the first OOM kill mark
    low = next(t for t, v in zip(s.mem_available.t_s, s.mem_available.v, strict=True) if v < 1)
    kills = [m.t_s for m in s.marks if m.tag == "oom_kill"]
    assert len(kills) >= 2 and low < min(kills)
    assert {p.label for p in s.psi} == {"PSI memory some", "PSI memory full"}
    svg = plot.svg(s)
    assert "memory (GiB)" in svg and ">oom_kill<" in svg.replace("> oom_kill<", ">oom_kill<")


def test_without_matplotlib_the_page_has_the_tables_and_says_how(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rep = judge(play_004(tmp_path), series=True)
    hide_matplotlib(monkeypatch)
    assert not plot.available()
    out = page(rep)
    assert "<svg" not in out
    assert html.escape(plot.INSTALL_HINT) in out
    assert "12 W → 302 W" in out and rep.headline in out  # the telemetry table is there
    with pytest.raises(BadInput, match="matplotlib"):
        render_clean(rep, "md", plot=str(tmp_path / "t.svg"))


@needs_matplotlib
def test_redact_masks_the_page_and_the_picture(tmp_path: Path) -> None:
    rep = judge(play_004(tmp_path), series=True)
    pic = tmp_path / "t.svg"
    redactor = Redactor((rep.hostname,), keep={rep.boot_id})
    out = render_clean(rep, "html", redactor=redactor, plot=str(pic))
    assert rep.hostname == "gpu-box-7" and "gpu-box-7" not in out and "&lt;host-1&gt;" in out
    assert "<host-1>" not in out  # a placeholder is text, never markup
    assert rep.boot_id in out
    assert pic.read_text().startswith("<svg") and (pic.stat().st_mode & 0o777) == 0o600


@needs_matplotlib
@pytest.mark.slow
def test_plot_files_and_the_markdown_link(tmp_path: Path) -> None:
    m = play_004(tmp_path)
    proc = make_proc(tmp_path / "live", m.boots[-1].boot_id)
    common = ("last-boot", "--ring", str(m.ring), "--proc", str(proc), "--no-journal")
    png = tmp_path / "t.png"
    out = kmsgd(*common, "--format", "md", "--plot", str(png))
    assert out.returncode == 0, out.stderr
    assert png.read_bytes().startswith(b"\x89PNG") and f"]({png})" in out.stdout
    bad = kmsgd(*common, "--plot", str(tmp_path / "t.pdf"))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1 and ".svg or .png" in bad.stderr


def _last_boot(*args: str) -> tuple[int, str]:
    """`kmsgd last-boot` in process (a subprocess per call costs seconds)."""
    try:  # click 8.1 (Debian bookworm) mixes stderr into stdout unless told not to
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:  # click ≥ 8.2 always keeps them apart
        runner = CliRunner()
    result = runner.invoke(main, ["last-boot", *args])
    return result.exit_code, result.stderr


@needs_matplotlib
def test_plot_with_save_dir_is_saved_and_linked_from_the_saved_markdown(tmp_path: Path) -> None:
    """The boot-time form (`--save-dir`) ends after saving; `--plot` is not dropped there."""
    m = play_004(tmp_path)
    proc = make_proc(tmp_path / "live", m.boots[-1].boot_id)
    common = ("--ring", str(m.ring), "--proc", str(proc), "--no-journal")
    pic, reports = tmp_path / "t.svg", tmp_path / "reports"
    code, err = _last_boot(*common, "--save-dir", str(reports), "--plot", str(pic))
    assert code == 0, err
    assert pic.read_text().startswith("<svg") and (pic.stat().st_mode & 0o777) == 0o600
    saved = (reports / f"{m.boots[0].boot_id}.md").read_text()
    assert f"]({pic})" in saved
    # a --plot it cannot write is refused in one line before any report is saved
    other = tmp_path / "other"
    code, err = _last_boot(*common, "--save-dir", str(other), "--plot", str(tmp_path / "t.pdf"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and ".svg or .png" in err
    assert not other.exists() or not any(other.iterdir())


@needs_matplotlib
def test_a_link_planted_at_the_plot_path_is_refused_not_followed(tmp_path: Path) -> None:
    m = play_004(tmp_path)
    proc = make_proc(tmp_path / "live", m.boots[-1].boot_id)
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    link = tmp_path / "t.svg"
    link.symlink_to(victim)
    code, err = _last_boot(
        "--ring", str(m.ring), "--proc", str(proc), "--no-journal", "--format", "md",
        "--plot", str(link),
    )  # fmt: skip
    assert code == 2 and len(err.strip().splitlines()) == 1 and "symbolic links" in err
    assert victim.read_text() == "keep me\n" and link.is_symlink()


@needs_matplotlib
def test_analyze_html_marks_a_pasted_logs_signatures(tmp_path: Path) -> None:
    log = tmp_path / "dmesg.txt"
    log.write_text(
        "[  100.000000] Linux version 6.8.0\n"
        "[  200.000000] amdgpu 0000:03:00.0: amdgpu: SMU: I'm not done with your previous command\n"
        "[  201.000000] amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n"
        "[  230.000000] usb 1-1: new high-speed USB device number 2 using xhci_hcd\n"
    )
    out = analyze_paths([str(log)], fmt="html", plot=str(tmp_path / "a.svg"))
    assert "amdgpu_smu_timeout" in out and "<svg" in out
    titles = re.findall(r"<title>([^<]*)</title>", out)
    assert any(t.startswith("amdgpu_smu_timeout -30.000 s [200.000000]") for t in titles)
    assert (tmp_path / "a.svg").read_text().count("amdgpu_gpu_reset") >= 1


@needs_matplotlib
@pytest.mark.slow
def test_a_long_incident_is_thinned_before_the_last_minutes_never_in_them(tmp_path: Path) -> None:
    """An incident opened 1 h before the end widens the window; the samples before the last
    10 min are thinned to a bounded count, those in them are all kept."""
    from scenario import Machine
    from seeds import power

    m = Machine(tmp_path)
    b = m.boot()
    b.emit(
        Kind.INCIDENT,
        {"incident": 1, "record": "start", "trigger": "soft_lockup", "source": "kernel"},
    )
    for _ in range(3600):
        b.clock.advance(1)
        power(b, "0000:03:00.0", [100.0] * 10)
        b.rec.step()
    b.die()
    m.boot(after_s=60)
    rep = judge(m, series=True)
    s = rep.series
    assert s is not None and s.start_s <= -3500
    (gpu,) = s.gpus
    t = gpu.power[0].t_s
    old = [x for x in t if x < -ser.WINDOW_S]
    assert len([x for x in t if x >= -ser.WINDOW_S + 1]) >= ser.WINDOW_S - 2
    assert 0 < len(old) <= ser.OLD_BUCKETS * ser.OLD_PER_BUCKET
    assert s.incidents and s.incidents[0].label == "soft_lockup"
    out = page(rep)
    assert len(out) < 2 << 20 and "Samples before -600 s are thinned" in out
