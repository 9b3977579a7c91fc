"""The HTML post-mortem as a person sees it: headless Chromium opens the page of each played
seed boot (tests/seeds.py) at 1280 px and the test reads what is on it, not pixels.

The page itself carries no script. To ask the browser what it laid out, the test opens a copy
with a small script added (and the page's Content-Security-Policy, which would forbid that
script, left out) that writes its findings into the DOM; `--dump-dom` prints them. The
screenshot is taken of the page as shipped. With KMSGD_SCREENSHOTS=DIR the screenshots are
kept there (docs/ holds the ones the operator guide shows).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from nompl import hide_matplotlib
from scenario import Machine
from seeds import judge, play_000, play_003, play_004

from kmsgd.report import plot
from kmsgd.report.render_html import escaped, page

pytestmark = pytest.mark.slow
needs_matplotlib = pytest.mark.skipif(
    not plot.available(), reason="the pictures need matplotlib (pip install .[plot])"
)
WIDTH = 1280
PROBE = """<script>
addEventListener("load", () => {
  const width = document.documentElement.clientWidth;
  const svg = document.querySelector("#timeline svg");
  const facts = {
    width,
    svg: !!svg,
    texts: svg ? [...svg.querySelectorAll("text")].map(t => t.textContent.trim()) : [],
    titles: svg ? [...svg.querySelectorAll("title")].map(t => t.textContent) : [],
    h1: document.querySelector("h1").textContent,
    sections: [...document.querySelectorAll("section")].map(s => s.id),
    outside: [],
    requests: performance.getEntriesByType("resource").map(e => e.name),
  };
  for (const el of document.body.querySelectorAll("*")) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && (r.left < -0.5 || r.right > width + 0.5))
      facts.outside.push(`${el.tagName} ${el.id} ${r.left}..${r.right}`);
  }
  const pre = document.createElement("pre");
  pre.id = "kmsgd-facts";
  pre.textContent = JSON.stringify(facts);
  document.body.append(pre);
});
</script>"""


def _install() -> str | None:
    """The chromium binary, installed with apt-get when missing and we are root; None if not."""
    found = shutil.which("chromium")
    if found or os.geteuid() != 0 or not shutil.which("apt-get"):
        return found
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (
        ["apt-get", "update", "-qq"],
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium"],
    ):
        if subprocess.run(cmd, env=env, capture_output=True, check=False, timeout=900).returncode:
            return None
    return shutil.which("chromium")


@pytest.fixture(scope="session")
def chromium() -> str:
    exe = _install()
    if exe is None:
        pytest.skip(
            "chromium is not installed and could not be (apt-get install chromium needs root)"
        )
    return exe


def _run(exe: str, *args: str) -> str:
    out = subprocess.run(
        [
            exe,
            "--headless",
            "--no-sandbox",  # as root (CI containers); the page is our own file
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--host-resolver-rules=MAP * ~NOTFOUND",  # nothing may leave the machine anyway
            f"--window-size={WIDTH},2400",
            "--virtual-time-budget=3000",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def _open(exe: str, html_text: str, tmp: Path, name: str) -> dict[str, Any]:
    """What Chromium laid out for the page, and its screenshot beside it."""
    shipped = tmp / f"{name}.html"
    shipped.write_text(html_text)
    probed = tmp / f"{name}-probe.html"
    head, csp, rest = html_text.partition('<meta http-equiv="Content-Security-Policy"')
    assert csp, "the page forbids fetches with a Content-Security-Policy"
    rest = rest[rest.index(">") + 1 :]
    probed.write_text(head + rest.replace("</body>", PROBE + "</body>", 1))
    dom = _run(exe, "--dump-dom", probed.as_uri())
    start = dom.index('<pre id="kmsgd-facts">') + len('<pre id="kmsgd-facts">')
    facts: dict[str, Any] = json.loads(_unescape(dom[start : dom.index("</pre>", start)]))
    shot = tmp / f"{name}.png"
    _run(exe, f"--screenshot={shot}", shipped.as_uri())
    assert shot.read_bytes().startswith(b"\x89PNG")
    keep = os.environ.get("KMSGD_SCREENSHOTS")
    if keep and "-" not in name:
        shutil.copy(shot, Path(keep) / f"html-seed-{name}.png")
    return facts


def _unescape(text: str) -> str:
    import html

    return html.unescape(text)


def _common(f: dict[str, Any], headline: str) -> None:
    assert f["width"] == WIDTH and f["svg"]
    assert f["h1"] == headline
    assert f["sections"].index("timeline") > 0  # the verdict's sections come first
    assert not f["outside"], f["outside"][:10]
    assert not f["requests"]
    assert "kernel: signatures, lines per second, incidents, silence, time of death" in f["texts"]
    assert any(t.startswith("time of death: after +0.000 s") for t in f["titles"])


Play = Callable[[Path], Machine]


@needs_matplotlib
def test_seed_000_shows_the_chain_then_the_silence(chromium: str, tmp_path: Path) -> None:
    rep = judge(play_000(tmp_path / "ring"), series=True)
    f = _open(chromium, page(rep), tmp_path, "000")
    _common(f, rep.headline)
    for tag in ("amdgpu_smu_timeout", "amdgpu_mes_timeout", "amdgpu_gpu_reset"):
        assert tag in f["texts"]
    silence = [t for t in f["titles"] if t.startswith("silence: no kernel line")]
    assert silence and "150.5 s" in silence[0]
    assert any(t.startswith("last heartbeat") for t in f["titles"])


@needs_matplotlib
def test_seed_004_shows_the_power_step_in_the_zoom(chromium: str, tmp_path: Path) -> None:
    rep = judge(play_004(tmp_path / "ring"), series=True)
    f = _open(chromium, page(rep), tmp_path, "004")
    _common(f, rep.headline)
    assert "GPU power (W): per-second mean, min-max band, 10 Hz reads, cap" in f["texts"]
    for card in ("0000:03:00.0", "0000:43:00.0"):
        assert f"{card} ppt" in f["texts"]  # the legend: one line a GPU
    assert "zoom: the final 2 s, every power read" in f["texts"]
    assert "GPU temperatures (°C)" in f["texts"]
    assert any(t.startswith("0000:03:00.0 ppt 10 Hz: 12 W at -0.300 s") for t in f["titles"])
    assert any(t.startswith("0000:43:00.0 ppt 10 Hz: 301.5 W at -0.100 s") for t in f["titles"])
    assert "power cap 289 W: 0000:03:00.0, 0000:43:00.0" in f["titles"]


@needs_matplotlib
def test_seed_003_shows_memory_running_out(chromium: str, tmp_path: Path) -> None:
    rep = judge(play_003(tmp_path / "ring"), series=True)
    f = _open(chromium, page(rep), tmp_path, "003")
    _common(f, rep.headline)
    assert "memory (GiB)" in f["texts"] and "memory pressure (PSI avg10, %)" in f["texts"]
    assert "oom_kill" in f["texts"]
    lows = [t for t in f["titles"] if t.startswith("MemAvailable: 0.3 GiB")]
    assert lows, [t for t in f["titles"] if t.startswith("MemAvailable")][-3:]


def test_without_matplotlib_the_page_still_reads(
    chromium: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The install without the plot extra: the tables, one line on how to get the picture."""
    rep = judge(play_004(tmp_path / "ring"), series=True)
    hide_matplotlib(monkeypatch)
    f = _open(chromium, page(escaped(rep)), tmp_path, "004-no-plot")
    assert not f["svg"] and f["h1"] == rep.headline
    assert not f["outside"] and not f["requests"]
    assert {"verdict", "timeline", "telemetry", "changes"} <= {*f["sections"], "verdict"}
