"""Every catalogue entry against the source's own format strings (`Signature.formats`): each
format, rendered as printk would with the prefix its macro adds, is tagged by its entry; every
entry carries formats and every tag the catalogue can emit is produced by one; and the routine
lines printed beside the evidence (an OOM kill's reaper, a reset that worked) are not read as
failures of their own."""

from __future__ import annotations

import pytest

from kmsgd.catalogue.base import Format, Signature
from kmsgd.catalogue.gpu import xid_cause
from kmsgd.catalogue.hardware import EARLY_US
from kmsgd.catalogue.table import CATALOGUE, all_tags, match_text
from kmsgd.catalogue.xid import XID
from tests.catalogue.printk import render

_LATE_US = 3_600_000_000  # an hour into the boot: "at runtime" for the entries that read time
_XID_EXAMPLE = 79  # the code the Xid formats carry in their args


def _lines(f: Format, args: tuple[object, ...] | None = None) -> list[str]:
    """The records one printk of `f` makes: the prefix goes before the first; an embedded
    newline starts a record of its own (kernel/printk/printk.c vprintk_store)."""
    text = f.prefix + render(f.fmt, f.args if args is None else args)
    return [line for line in text.split("\n") if line.strip()]


def _tags(line: str, f: Format, s: Signature) -> set[str]:
    ts = EARLY_US // 10 if s.tag == "mce_logged_at_boot" else _LATE_US
    if f.program:
        return {t for t, _, _ in match_text(f"{f.program}[4242]: {line}", 3, ts)}
    return {t for t, _, _ in match_text(line, 0, ts)}


def _renderings() -> list[tuple[str, Signature, Format, tuple[object, ...] | None]]:
    """(tag expected, entry, format, args) for every format; the Xid family once per code."""
    out: list[tuple[str, Signature, Format, tuple[object, ...] | None]] = []
    for s in CATALOGUE:
        for f in s.formats:
            if s.tag == "nvidia_xid":
                for code in sorted(XID):
                    args = tuple(code if a == _XID_EXAMPLE else a for a in f.args)
                    out.append((f"nvidia_xid_{code}", s, f, args))
            else:
                out.append((s.tag, s, f, None))
    return out


RENDERINGS = _renderings()


@pytest.mark.parametrize(
    ("tag", "entry", "fmt", "args"),
    RENDERINGS,
    ids=[f"{t}:{f.fmt[:40]}" for t, _, f, _ in RENDERINGS],
)
def test_every_format_is_tagged_by_its_entry(
    tag: str, entry: Signature, fmt: Format, args: tuple[object, ...] | None
) -> None:
    lines = _lines(fmt, args)
    found = [_tags(line, fmt, entry) for line in lines]
    assert any(tag in t for t in found), (tag, lines, found)


def test_every_entry_has_a_format_with_file_and_versions() -> None:
    for s in CATALOGUE:
        assert s.formats, f"{s.tag}: no format strings"
        for f in s.formats:
            assert f.fmt and f.file and f.versions and "?" not in f.versions, (s.tag, f)


def test_every_tag_is_produced_by_a_rendered_format() -> None:
    produced = {tag for tag, *_ in RENDERINGS}
    assert set(all_tags()) <= produced, set(all_tags()) - produced


def test_printk_renderer_follows_vsprintf() -> None:
    # the conversions the catalogue's formats use, as lib/vsprintf.c prints them
    assert render("gfp_mask=%#x(%pGg), order=%d", (0x140CCA, "GFP_HIGHUSER_MOVABLE")) == (
        "gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE), order=3"
    )
    assert render("%04x:%02x:%02x.%x", (0, 0x41, 0, 0)) == "0000:41:00.0"
    assert render("[%5d] %-8s|%10s|", (42, "ab", "cd")) == "[   42] ab      |        cd|"
    assert render(
        "%s: %pV, mode:%#x", ("kworker", ("page allocation failure: order:%u", (4,)))
    ) == ("kworker: page allocation failure: order:4, mode:0x1f")
    assert render("nodemask=%*pbl,%llu%%", (8, "0-1", 7)) == "nodemask=0-1,7%"
    assert render("%s %s%pBb", ("", "? ", "page_fault_oops+0x156/0x4f0")) == (
        " ? page_fault_oops+0x156/0x4f0"
    )


# Lines printed next to the evidence, from the same sources, that are no failure themselves:
# (format, tags they may carry: those of routine or lifecycle entries only)
ROUTINE: list[tuple[Format, frozenset[str]]] = [
    (
        Format(
            "oom_reaper: reaped process %d (%s), now anon-rss:%lukB, file-rss:%lukB, "
            "shmem-rss:%lukB",
            "mm/oom_kill.c",
            "4.19-6.18",
            args=(4242, "python3", 0, 0, 0),
        ),
        frozenset(),
    ),
    (
        Format(
            "SMU is initialized successfully!",
            "drivers/gpu/drm/amd/pm/swsmu/amdgpu_smu.c",
            "5.15-6.18",
            "amdgpu 0000:03:00.0: amdgpu: ",
        ),
        frozenset(),
    ),
    (
        Format(
            "DMUB hardware initialized: version=0x%08X",
            "drivers/gpu/drm/amd/display/amdgpu_dm/amdgpu_dm.c",
            "5.15-6.18",
            "[drm] ",
            args=(0x08004300,),
        ),
        frozenset(),
    ),
    (
        Format(
            "Voltage normalised",
            "drivers/hwmon/raspberrypi-hwmon.c",
            "4.19-6.18",
            "raspberrypi-hwmon raspberrypi-hwmon: ",
        ),
        frozenset(),
    ),
    (
        # DPC's recovery passing by, not a link lost
        Format(
            "Slot(%s): Link Down/Up ignored",
            "drivers/pci/hotplug/pciehp_hpc.c",
            "5.15-6.18",
            "pcieport 0000:00:1c.0: pciehp: ",
            args=("1",),
        ),
        frozenset(),
    ),
    (
        # a reset that worked: the reset is evidence (amdgpu_gpu_reset), never a failure of
        # the SMU, the rings or the init
        Format(
            "GPU reset(%d) succeeded!",
            "drivers/gpu/drm/amd/amdgpu/amdgpu_device.c",
            "4.19-6.18",
            "amdgpu 0000:03:00.0: amdgpu: ",
            args=(2,),
        ),
        frozenset({"amdgpu_gpu_reset"}),
    ),
]


@pytest.mark.parametrize(("fmt", "allowed"), ROUTINE, ids=[f.fmt[:40] for f, _ in ROUTINE])
def test_routine_lines_beside_the_evidence_are_no_failure(
    fmt: Format, allowed: frozenset[str]
) -> None:
    for line in _lines(fmt):
        got = {t for t, _, _ in match_text(line, 0, _LATE_US)}
        assert got <= allowed, (line, got)


def test_caused_by_previous_xid_names_the_cause() -> None:
    f = next(
        f for f in next(s for s in CATALOGUE if s.tag == "nvidia_xid").formats if "%s%s" in f.fmt
    )
    code = tuple(45 if a == _XID_EXAMPLE else a for a in f.args[:-1])
    args = (*code, " caused by previous Xid 31")
    (line,) = _lines(f, args)
    assert [t for t, _, _ in match_text(line, 0, None)] == ["nvidia_xid_45"]
    assert xid_cause(line) == "nvidia_xid_31"
    assert xid_cause(line.replace(" caused by previous Xid 31", "")) is None
