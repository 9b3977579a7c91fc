"""The timeline picture of a post-mortem: the boot's last minutes on one time axis.

The only importer of matplotlib (the optional extra `kmsgd[plot]`, Debian's
python3-matplotlib): its Agg and SVG backends draw without a display, and `pyplot` is never
imported (it would pick an interactive backend and costs start-up time). Panels, top to
bottom, share one x axis, seconds before the end: the GPUs' power, a colour a GPU (the
per-second mean with the min/max of the 10 Hz reads as a band, the raw reads of the final
minute, the power cap as a line), the GPUs' temperatures, memory (MemAvailable, GPU memory
used), memory pressure (PSI), and the kernel (every signature as a mark with its tag, the
lines' density, incidents, the last heartbeat, the silence, the time of death as a band);
then a zoom of the final 2 s when the ring holds sub-second reads. Hovering a mark or a point
shows its value and time: the SVG gets a `<title>` per mark and per hover point (matplotlib
writes an artist's gid as its group's id; the titles are put into those groups afterwards).
"""

from __future__ import annotations

import html
import io
import os
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kmsgd.judge.series import ZOOM_S, BootSeries, Trace
from kmsgd.types import iso_utc

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

INSTALL_HINT = (
    "pictures need matplotlib: pip install 'kmsgd[plot]' or apt install python3-matplotlib"
)
_ZOOM_RIGHT = 0.4  # the zoom shows this much after the last sign of life
# hover points in the whole figure besides the final seconds (an SVG element each, with its
# title: they were a third of the drawing at 600)
HOVER_POINTS = 300
BAND_BINS = 400  # the min-max band before the final minute: at most this many bins (≈ px/3)
BAND_KEEP_S = 60.0  # the band of the final minute is drawn point by point
_RC: Any = {  # Any: matplotlib types the keys as a Literal of every rcParam
    "svg.fonttype": "none",  # text stays text: smaller, searchable, selectable
    "svg.hashsalt": "kmsgd",  # the same picture gives the same file
    "font.size": 8,
    "axes.titlesize": 9,
    "axes.titlelocation": "left",
    "axes.titley": 1.0,  # a fixed place: found automatically, it measured every tick label
    "axes.grid": True,
    "grid.alpha": 0.3,
    "path.simplify": True,
}
_DEATH, _SILENCE, _INCIDENT, _BEAT = "#d62728", "#7f7f7f", "#ff7f0e", "#2ca02c"
# matplotlib's default colours (tab10) as hex: a "C3" is looked up in the rcParams' property
# cycle on every conversion and never cached (each hover point is one conversion: about a
# quarter of the drawing time of an 8-GPU picture), a hex string is converted once
_PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
)  # fmt: skip


def _color(k: int) -> str:
    return _PALETTE[k % len(_PALETTE)]


_SEVERITY = {"critical": "#b2182b", "error": "#d6604d", "warning": "#e08214", "info": "#4d4d4d"}
Clean = Callable[[str], str]


def _matplotlib() -> Any:
    """matplotlib, imported. Its numpy starts OpenBLAS with a thread a CPU when loaded, for
    linear algebra that no picture does (on 2 CPUs a tenth of the import's CPU time): one
    thread is enough, unless the environment says otherwise."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    import matplotlib

    return matplotlib


def available() -> bool:
    """Whether matplotlib can be imported (the `plot` extra is installed)."""
    try:
        _matplotlib()
    except ImportError:
        return False
    return True


@dataclass
class _Titles:
    """Hover texts for the SVG, by gid: one for an artist, or one per point of a collection."""

    one: dict[str, str]
    each: dict[str, list[str]]
    # hover points waiting to be drawn, per panel: (axes, x, y, colours, titles)
    pending: dict[int, tuple[Any, list[float], list[float], list[str], list[str]]] = field(
        default_factory=dict
    )

    def gid(self, text: str) -> str:
        gid = f"kmsgd-{len(self.one) + len(self.each)}"
        self.one[gid] = text
        return gid

    def points(self, texts: list[str]) -> str:
        gid = f"kmsgd-{len(self.one) + len(self.each)}"
        self.each[gid] = texts
        return gid


def _at(series: BootSeries, t: float) -> str:
    """A time on the axis for people: "-12.300 s (14:01:12.300 UTC)"."""
    if series.end_wall_us is None:
        return f"{t:+.3f} s"
    wall = iso_utc(series.end_wall_us + int(t * 1e6)) or ""
    return f"{t:+.3f} s ({wall})"


def _pick(n: int, want: int, keep_from: int) -> list[int]:
    """Indices of at most `want` points spread over `n`, plus every one from `keep_from`."""
    step = max(1, n // max(1, want))
    return sorted({*range(0, n, step), *range(max(0, keep_from), n)} | ({n - 1} if n else set()))


def _hover(
    ax: Axes, s: BootSeries, tr: Trace, color: str, share: int, titles: _Titles, name: str = ""
) -> None:
    """Small points with a title each (`name`, default the trace's label, then the value and
    the time): `share` of them over the trace, all in the zoom."""
    n = len(tr.t_s)
    if not n:
        return
    first_zoom = next((i for i, t in enumerate(tr.t_s) if t >= -ZOOM_S), n)
    idx = _pick(n, share, first_zoom if n - first_zoom <= 40 else n)
    xs = [tr.t_s[i] for i in idx]
    ys = [tr.v[i] for i in idx]
    texts = []
    for i in idx:
        band = f" (min {tr.lo[i]:g}, max {tr.hi[i]:g})" if tr.lo else ""
        texts.append(f"{name or tr.label}: {tr.v[i]:g} {tr.unit}{band} at {_at(s, tr.t_s[i])}")
    got = titles.pending.setdefault(id(ax), (ax, [], [], [], []))
    got[1].extend(xs)
    got[2].extend(ys)
    got[3].extend([color] * len(xs))
    got[4].extend(texts)


def _flush_hover(titles: _Titles) -> None:
    """One scatter a panel for all its hover points (a collection each cost a tenth of a
    second on a box of 8 GPUs)."""
    for ax, xs, ys, colors, texts in titles.pending.values():
        ax.scatter(xs, ys, s=6, c=colors, alpha=0.5, linewidths=0, gid=titles.points(texts))
    titles.pending.clear()


def _spans(
    ax: Axes, s: BootSeries, titles: _Titles, *, kernel: bool, right: float | None = None
) -> None:
    """The time-of-death band (every panel; cut at `right`, the panel's edge: a shape that
    runs past it is clipped from sight but still widens the page), and on the kernel panel
    the silence, the incidents and the last heartbeat."""
    d = s.death
    if d is not None and d.end_s is not None:
        text = f"time of death: after {_at(s, d.start_s)}, within {d.end_s - d.start_s:g} s"
        hi = max(d.end_s, d.start_s + 0.05)
        ax.axvspan(
            d.start_s,
            hi if right is None else min(hi, right),
            color=_DEATH,
            alpha=0.25,
            lw=0,
            gid=titles.gid(text),
        )
    if not kernel:
        return
    if s.silence is not None:
        sil = s.silence
        text = f"silence: no kernel line for the last {-sil.start_s:.1f} s"
        ax.axvspan(
            sil.start_s, sil.end_s or 0.0, color=_SILENCE, alpha=0.15, lw=0, gid=titles.gid(text)
        )
        ax.annotate(
            f"silence {-sil.start_s:.0f} s",
            ((sil.start_s + (sil.end_s or 0.0)) / 2, 0.96),
            xycoords=("data", "axes fraction"),
            ha="center",
            va="top",
            fontsize=8,
            color="#404040",
        )
    if d is not None and d.end_s is not None:
        ax.annotate(
            f"time of death ±{d.end_s - d.start_s:g} s ",
            (d.start_s, 0.86),
            xycoords=("data", "axes fraction"),
            ha="right",
            va="top",
            fontsize=8,
            color=_DEATH,
        )
    for inc in s.incidents:
        lo = max(inc.start_s, s.start_s)
        hi = inc.end_s if inc.end_s is not None else 0.0
        if hi < s.start_s:
            continue
        ended = "ongoing at the end" if inc.end_s is None else f"ended {_at(s, hi)}"
        text = f"incident {inc.label}: started {_at(s, inc.start_s)}, {ended}"
        ax.axvspan(
            lo, hi, ymin=0.0, ymax=0.06, color=_INCIDENT, alpha=0.6, lw=0, gid=titles.gid(text)
        )
        ax.annotate(
            f"incident: {inc.label}",
            (lo, 0.07),
            xycoords=("data", "axes fraction"),
            fontsize=7,
            color=_INCIDENT,
        )
    if s.last_heartbeat_s is not None:
        text = f"last heartbeat {_at(s, s.last_heartbeat_s)}"
        ax.axvline(s.last_heartbeat_s, color=_BEAT, lw=1.5, ls="--", gid=titles.gid(text))


def _kernel(ax: Axes, s: BootSeries, titles: _Titles, clean: Clean, lo: float) -> None:
    ax.set_title("kernel: signatures, lines per second, incidents, silence, time of death")
    if s.density is not None:
        d = s.density
        half = (d.t_s[1] - d.t_s[0]) / 2 if len(d.t_s) > 1 else 0.5
        edges = [t - half for t in d.t_s] + [d.t_s[-1] + half]
        # one patch for all the bins (a bar chart draws one rectangle a bin)
        ax.stairs(d.v, edges, fill=True, color="#9ecae1", lw=0, label="lines/s")
    top = max((d.v for d in (s.density,) if d is not None), default=(1.0,))
    ymax = max(max(top, default=1.0), 1.0) * 1.25
    ax.set_ylim(0, ymax * 2.5)
    ax.set_ylabel("lines/s")
    labelled: dict[str, float] = {}
    marks = [m for m in s.marks if m.t_s >= lo]
    if marks:
        # one collection, a title per line: a line artist each cost more than the rest of
        # the panel when a storm filled the window with marks
        texts = [clean(f"{m.tag} {_at(s, m.t_s)} {m.when}: {m.text}") for m in marks]
        ax.vlines(
            [m.t_s for m in marks],
            0,
            1,
            transform=ax.get_xaxis_transform(),
            colors=[_SEVERITY.get(m.severity or "", "#4d4d4d") for m in marks],
            lw=1.5,
            alpha=0.8,
            gid=titles.points(texts),
        )
    for m in marks:
        labelled[m.tag] = m.t_s
    # one label per tag (its last line in the window), staggered so neighbours do not collide
    for k, (tag, t) in enumerate(sorted(labelled.items(), key=lambda kv: kv[1])):
        y = ymax * (1.05 + 0.22 * (k % 6))
        ax.text(
            t,
            y,
            f" {tag}",
            fontsize=7,
            rotation=0,
            ha="right" if t > lo * 0.2 else "left",
            va="bottom",
            gid=titles.gid(clean(f"{tag} at {_at(s, t)}")),
        )
    _spans(ax, s, titles, kernel=True)


def _power(ax: Axes, s: BootSeries, titles: _Titles, share: int) -> None:
    """Every GPU's power in one panel (one colour a GPU): one panel per GPU cost more time
    than its lines on an 8-GPU box (every panel has its own ticks, labels and grid)."""
    ax.set_title("GPU power (W): per-second mean, min-max band, 10 Hz reads, cap")
    for k, g in enumerate(s.gpus):
        color = _color(k)
        for tr in g.power:
            if tr.lo:
                t, lo, hi = _envelope(tr, s.start_s)
                ax.fill_between(t, lo, hi, color=color, alpha=0.2, lw=0)
            ax.plot(
                tr.t_s,
                tr.v,
                color=color,
                lw=1,
                label=f"{g.device} {tr.label}",
            )
            _hover(ax, s, tr, color, share, titles, f"{g.device} {tr.label}")
        for tr in g.raw_power:
            ax.plot(tr.t_s, tr.v, color=color, lw=0.8, marker=".", ms=2)
            _hover(ax, s, tr, color, share, titles, f"{g.device} {tr.label} 10 Hz")
    caps: dict[float, list[str]] = {}
    for g in s.gpus:
        if g.cap_w is not None:
            caps.setdefault(g.cap_w, []).append(g.device)
    for cap, devices in sorted(caps.items()):
        who = ", ".join(devices)
        ax.axhline(
            cap, color="#000000", lw=1, ls=":", gid=titles.gid(f"power cap {cap:g} W: {who}")
        )
        ax.annotate(
            f"power cap {cap:g} W",
            (0.5, cap),
            xycoords=("axes fraction", "data"),
            fontsize=7,
            va="bottom",
            ha="center",
        )
    ax.set_ylim(bottom=0)
    _legend(ax)


def _envelope(tr: Trace, start_s: float) -> tuple[list[float], list[float], list[float]]:
    """The band's outline, its part before the final minute merged into at most BAND_BINS
    bins (the lowest min and highest max of each): a polygon is not simplified by matplotlib,
    and per-second vertices of hours would make the page megabytes for no visible detail."""
    width = max((-BAND_KEEP_S - start_s) / BAND_BINS, 1e-9)
    bins: dict[int, tuple[float, float, float]] = {}
    t_out: list[float] = []
    lo_out: list[float] = []
    hi_out: list[float] = []
    for t, lo, hi in zip(tr.t_s, tr.lo, tr.hi, strict=True):
        if t >= -BAND_KEEP_S:
            t_out.append(t)
            lo_out.append(lo)
            hi_out.append(hi)
            continue
        k = int((t - start_s) / width)
        got = bins.get(k)
        bins[k] = (t, lo, hi) if got is None else (got[0], min(got[1], lo), max(got[2], hi))
    old = [bins[k] for k in sorted(bins)]
    return (
        [b[0] for b in old] + t_out,
        [b[1] for b in old] + lo_out,
        [b[2] for b in old] + hi_out,
    )


Styled = tuple[str, Trace, str, str]  # name, trace, colour, line style
_DASHES = ("-", "--", ":", "-.")


def _lines(
    ax: Axes,
    s: BootSeries,
    traces: Sequence[Styled],
    titles: _Titles,
    share: int,
    unit: str,
    title: str,
    key: Sequence[Key],
) -> None:
    """Lines of one unit, `key` saying what a style means (the GPUs' colours are the power
    panel's legend, and every hover point names its line)."""
    ax.set_title(title)
    for name, tr, color, style in traces:
        ax.plot(tr.t_s, tr.v, color=color, ls=style, lw=1)
        _hover(ax, s, tr, color, share, titles, name)
    ax.set_ylabel(unit)
    _key(ax, key)


LEGEND_MAX = 12  # entries shown; the hover titles name every line
Key = tuple[str, str]  # what a style means: the label, then its style in words ("dashed")
_STYLE_WORDS = {"-": "solid", "--": "dashed", ":": "dotted", "-.": "dash-dot"}
_COLOR_WORDS = dict(
    zip(
        _PALETTE,
        ("blue", "orange", "green", "red", "purple", "brown", "pink", "grey", "olive", "cyan"),
        strict=True,
    )
)


def _legend(ax: Axes) -> None:
    """The power panel's legend: a GPU a colour. A legend lays out and measures each entry when
    drawn (a legend a panel took a fifth of the drawing of 8 GPUs), so the other panels say
    what their styles mean in one line of text (`_key`)."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(
            handles[:LEGEND_MAX],
            labels[:LEGEND_MAX],
            loc="upper left",
            fontsize=7,
            framealpha=0.7,
            ncols=6,
        )


def _key(ax: Axes, key: Sequence[Key]) -> None:
    """What the panel's line styles mean, as one text at the right of its title."""
    if key:
        text = ", ".join(f"{label}: {style}" for label, style in key)
        ax.set_title(text, loc="right", fontsize=7, color="#404040")


def figure(s: BootSeries, *, title: str = "", clean: Clean = str) -> tuple[Figure, _Titles]:
    """The timeline as a matplotlib Figure (rcParams applied by the caller), with the hover
    texts its SVG gets. `clean` is applied to every text taken from the log (--redact)."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    titles = _Titles({}, {})
    # a colour a GPU (as in the power panel), a line style a sensor
    styles: dict[str, str] = {}  # a temperature sensor's line style, by its label
    for g in s.gpus:
        for t in g.temps:
            styles.setdefault(t.label, _DASHES[len(styles) % len(_DASHES)])
    temps: list[Styled] = [
        (f"{g.device} {t.label}", t, _color(k), styles[t.label])
        for k, g in enumerate(s.gpus)
        for t in g.temps
    ]
    temps_key = [(label, _STYLE_WORDS[style]) for label, style in styles.items()]
    mem: list[Styled] = []
    mem_key: list[Key] = []
    if s.mem_available is not None:
        mem.append(("MemAvailable", s.mem_available, "#000000", "-"))
        mem_key.append(("MemAvailable", "black"))
    mem += [
        (f"{g.device} VRAM used", g.vram_used, _color(k), "--")
        for k, g in enumerate(s.gpus)
        if g.vram_used is not None
    ]
    if len(mem) > len(mem_key):
        mem_key.append(("GPU VRAM used", "dashed, in a GPU's colour"))
    rows: list[str] = ["power"] * bool(s.gpus)
    rows += ["temps"] * bool(temps) + ["memory"] * bool(mem) + ["psi"] * bool(s.psi) + ["kernel"]
    zoom = s.subsecond
    traces = sum(len(g.power) + len(g.raw_power) + len(g.temps) for g in s.gpus) + len(mem)
    share = max(6, HOVER_POINTS // max(1, traces + len(s.psi)))
    heights = [1.0] * len(rows) + ([1.1] if zoom else [])
    # fixed margins, not a layout engine: constrained layout measured every text of every
    # panel and took longer than drawing them (8 GPUs: seconds)
    top_in = 0.35 + (0.35 * (1 + len(title) // 150) if title else 0.0)
    tall = 1.9 * sum(heights) + top_in + 0.45
    fig = Figure(figsize=(12, tall))
    grid = fig.add_gridspec(
        len(heights),
        1,
        height_ratios=heights,
        left=0.06,
        right=0.99,
        top=1 - top_in / tall,
        bottom=0.45 / tall,
        hspace=0.42 if not zoom else 0.5,
    )
    right = max(1.0, (s.death.end_s or 0.0) * 1.3 if s.death else 1.0)
    xticks = _ticks(s.start_s, right)
    axes: list[Axes] = []
    for k, row in enumerate(rows):
        ax = fig.add_subplot(grid[k])
        axes.append(ax)
        ax.set_xlim(s.start_s, right)
        ax.yaxis.set_major_locator(MaxNLocator(nbins=4))
        if row != "kernel":
            _grid_only(ax, xticks)
        if row == "power":
            _power(ax, s, titles, share)
        elif row == "temps":
            _lines(ax, s, temps, titles, share, "°C", "GPU temperatures (°C)", temps_key)
        elif row == "memory":
            _lines(
                ax,
                s,
                mem,
                titles,
                share,
                "GiB",
                "memory (GiB)",
                mem_key,
            )
            if s.mem_total_gib:
                ax.axhline(
                    s.mem_total_gib,
                    color="#000000",
                    lw=0.8,
                    ls=":",
                    gid=titles.gid(f"MemTotal {s.mem_total_gib:.1f} GiB"),
                )
            ax.set_ylim(bottom=0)
        elif row == "psi":
            psi = [(t.label, t, _color(k), "-") for k, t in enumerate(s.psi)]
            _lines(
                ax,
                s,
                psi,
                titles,
                share,
                "%",
                "memory pressure (PSI avg10, %)",
                [(name, _COLOR_WORDS[color]) for name, _, color, _ in psi],
            )
            ax.set_ylim(0, 100)
        else:
            _kernel(ax, s, titles, clean, s.start_s)
        if row != "kernel":
            _spans(ax, s, titles, kernel=False)
    _fixed_xticks(axes[-1], xticks)
    end = iso_utc(s.end_wall_us) if s.end_wall_us is not None else "the last line"
    axes[-1].set_xlabel(f"seconds before the last sign of life ({end})")
    if zoom:
        _zoom(fig.add_subplot(grid[len(rows)]), s, titles)
    _flush_hover(titles)
    if title:
        wrapped = textwrap.fill(clean(title), 150)
        fig.suptitle(
            wrapped, x=0.01, y=1 - 0.1 / tall, ha="left", va="top", fontsize=10, fontweight="bold"
        )
    return fig, titles


def _ticks(lo: float, hi: float) -> list[float]:
    """The x ticks, computed once for every panel (as matplotlib's default locator would
    place them)."""
    from matplotlib.ticker import MaxNLocator

    ticks = MaxNLocator(nbins=8, steps=[1, 2, 2.5, 5, 10]).tick_values(lo, hi)
    return [float(t) + 0.0 for t in ticks if lo <= t <= hi]  # + 0.0: never "−0"


def _fixed_xticks(ax: Axes, ticks: Sequence[float]) -> None:
    """Ticks at `ticks`, their labels our own text: matplotlib's locator and formatter run
    for every panel at every draw, and each tick is five artists."""
    from matplotlib.ticker import FixedFormatter, FixedLocator

    # one number of decimals for all, as matplotlib's formatter writes them (−2.0 … 0.0)
    digits = max((len(f"{t:g}".partition(".")[2]) for t in ticks), default=0)
    texts = [f"{t:.{digits}f}".replace("-", "\u2212") for t in ticks]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(FixedFormatter(texts))


def _grid_only(ax: Axes, ticks: Sequence[float]) -> None:
    """A panel above the bottom one: the x grid as one line collection, no x ticks (the
    panels share the bottom panel's axis and labels)."""
    from matplotlib.ticker import NullLocator

    ax.xaxis.set_major_locator(NullLocator())
    ax.vlines(
        ticks,
        0,
        1,
        transform=ax.get_xaxis_transform(),
        colors=_GRID,
        lw=0.8,
        alpha=0.3,
        zorder=1.5,  # as a gridline: under the data
    )


_GRID = "#b0b0b0"  # matplotlib's grid.color


def _zoom(ax: Axes, s: BootSeries, titles: _Titles) -> None:
    ax.set_title(f"zoom: the final {ZOOM_S:g} s, every power read")
    key: dict[bool, Key] = {}
    for k, g in enumerate(s.gpus):
        for tr in g.raw_power or g.power:
            pts = [(t, v) for t, v in zip(tr.t_s, tr.v, strict=True) if t >= -ZOOM_S]
            if not pts:
                continue
            raw = tr in g.raw_power
            ax.plot(
                [t for t, _ in pts],
                [v for _, v in pts],
                color=_color(k),
                marker="o" if raw else "",
                ms=3,
                lw=1.2 if raw else 0.6,
            )
            key[raw] = ("10 Hz reads", "dots") if raw else ("per-second mean", "thin line")
            _hover(
                ax,
                s,
                Trace(tr.label, tr.unit, tuple(t for t, _ in pts), tuple(v for _, v in pts)),
                _color(k),
                40,
                titles,
                f"{g.device} {tr.label}" + (" 10 Hz" if raw else " mean"),
            )
    for m in s.marks:
        if m.t_s >= -ZOOM_S:
            ax.axvline(m.t_s, color="#4d4d4d", lw=1, gid=titles.gid(f"{m.tag} {_at(s, m.t_s)}"))
    _spans(ax, s, titles, kernel=False, right=_ZOOM_RIGHT)
    ax.set_xlim(-ZOOM_S, _ZOOM_RIGHT)
    _fixed_xticks(ax, _ticks(-ZOOM_S, _ZOOM_RIGHT))
    ax.set_ylim(bottom=0)
    ax.set_ylabel("W")
    ax.set_xlabel("seconds before the last sign of life")
    _key(ax, [key[raw] for raw in (True, False) if raw in key])


_GROUP = re.compile(r'<g id="(kmsgd-\d+)">')
_POINT = re.compile(r"<(use|path) ([^>]*?)/>")


def _with_titles(svg: str, titles: _Titles) -> str:
    """The SVG with a <title> in each titled artist's group and in each hover point (the
    points of a collection are its group's <use> elements, or <path>s when matplotlib drew
    them one by one), in one pass."""
    out: list[str] = []
    pos = 0
    for m in _GROUP.finditer(svg):
        if m.start() < pos:
            continue
        gid = m.group(1)
        out.append(svg[pos : m.end()])
        pos = m.end()
        if gid in titles.one:
            out.append(f"<title>{html.escape(titles.one[gid])}</title>")
            continue
        texts = iter(titles.each.get(gid, ()))
        if svg[pos : pos + 80].lstrip().startswith("<defs>"):
            defs = svg.index("</defs>", pos)  # the marker's definition: copied as it is
            out.append(svg[pos : defs + 7])
            pos = defs + 7
        limit = svg.find('<g id="', pos)  # the next artist: this group's points end before
        for text in texts:
            p = _POINT.search(svg, pos, limit if limit >= 0 else len(svg))
            if p is None:
                break
            out += [svg[pos : p.end() - 2], f"><title>{html.escape(text)}</title></{p.group(1)}>"]
            pos = p.end()
    out.append(svg[pos:])
    return "".join(out)


def svg(s: BootSeries, *, title: str = "", clean: Clean = str) -> str:
    """The timeline as SVG text (no XML prolog: it can be inlined in HTML or saved alone)."""
    matplotlib = _matplotlib()
    with matplotlib.rc_context(_RC):
        fig, titles = figure(s, title=title, clean=clean)
        out = io.StringIO()
        fig.savefig(out, format="svg", metadata={"Date": None})
    text = out.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r'<svg([^>]*?) width="[\d.]+pt" height="[\d.]+pt"', r"<svg\1", text, count=1)
    return _with_titles(text, titles)


def png(s: BootSeries, *, title: str = "", clean: Clean = str, dpi: int = 100) -> bytes:
    """The timeline as a PNG (no hover: a picture for a chat message)."""
    matplotlib = _matplotlib()
    with matplotlib.rc_context(_RC):
        fig, _ = figure(s, title=title, clean=clean)
        out = io.BytesIO()
        fig.savefig(out, format="png", dpi=dpi)
    return out.getvalue()


def save(s: BootSeries, path: str, *, title: str = "", clean: Clean = str) -> None:
    """`--plot FILE`: the timeline alone as FILE.svg or FILE.png (mode 0600: it holds the log's
    lines in its hover texts). BadInput for another suffix or without matplotlib; OSError
    (ELOOP) when FILE is a symbolic link."""
    from kmsgd.errors import BadInput

    suffix = os.path.splitext(path)[1].lower()
    if suffix not in (".svg", ".png"):
        raise BadInput(f"--plot {path}: the file must end in .svg or .png")
    if not available():
        raise BadInput(f"--plot {path}: {INSTALL_HINT}")
    data = (
        png(s, title=title, clean=clean)
        if suffix == ".png"
        else svg(s, title=title, clean=clean).encode()
    )
    # O_NOFOLLOW: a link planted at PATH (a shared directory such as /tmp) is refused
    # (ELOOP, one line), never written through
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
