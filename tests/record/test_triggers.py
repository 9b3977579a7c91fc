"""The recorder's trigger table (kmsgd/record/triggers.py) against the catalogue's `trigger`
property: same tags, classes, bursts and Xid codes, and every conformance line of a trigger
tag in tests/catalogue/test_catalogue.py gives the same answer on both sides (a catalogue
pattern that learns a new form fails here until the recorder's copy learns it too). Also:
only kernel-facility records trigger."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from kmsgd.catalogue.table import BY_TAG, CATALOGUE, match_text
from kmsgd.catalogue.xid import XID_TRIGGERS
from kmsgd.record import triggers

_spec = importlib.util.spec_from_file_location(
    "catalogue_examples", Path(__file__).parent.parent / "catalogue" / "test_catalogue.py"
)
assert _spec is not None and _spec.loader is not None
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)
EXAMPLES: dict[str, tuple[list[str], list[str]]] = _mod.EXAMPLES
U: str = _mod.U

CAT_TRIGGERS = {s.tag: s for s in CATALOGUE if s.trigger is not None}
REC = {t.tag: t for t in triggers.TABLE}


def test_the_same_tags_trigger_on_both_sides() -> None:
    assert set(CAT_TRIGGERS) - {"nvidia_xid"} == set(REC)


@pytest.mark.parametrize("tag", sorted(REC))
def test_class_and_burst_agree(tag: str) -> None:
    sig, rec = CAT_TRIGGERS[tag], REC[tag]
    assert sig.trigger is not None
    assert rec.cls == sig.trigger.cls
    assert (rec.burst, rec.window_s) == (sig.trigger.burst, sig.trigger.window_s)
    # the patterns themselves may differ in form; what they say about every conformance
    # line must not (below). A failure there means: extend kmsgd/record/triggers.py.


def test_xid_codes_agree() -> None:
    fam = BY_TAG["nvidia_xid"].trigger
    assert fam is not None and fam.codes == XID_TRIGGERS
    assert dict(XID_TRIGGERS) == triggers.XID_CLASSES


def _catalogue_says(line: str) -> set[str]:
    """The trigger tags the catalogue gives a kernel line (its match plus `narrow`)."""
    import re

    out = set()
    for tag, sig, _dev in match_text(line, 0, None):
        trig = sig.trigger
        if trig is None:
            continue
        if trig.codes:
            code = int(tag.rsplit("_", 1)[1])
            if code in dict(trig.codes):
                out.add(tag)
        elif not trig.narrow or re.search(trig.narrow, line):
            out.add(tag)
    return out


def _recorder_says(line: str) -> set[str]:
    hit = triggers.match(b"3,1,2,-;" + line.encode() + b"\n")
    return {hit.tag} if hit else set()


@pytest.mark.parametrize("tag", sorted(set(CAT_TRIGGERS) & set(EXAMPLES)))
def test_every_conformance_line_gives_the_same_answer(tag: str) -> None:
    positives, negatives = EXAMPLES[tag]
    for line in positives + negatives:
        if line.startswith((U, "@")):
            continue
        want = _catalogue_says(line)
        got = _recorder_says(line)
        # the recorder names one trigger per line; it must be one the catalogue names
        assert got <= want and bool(got) == bool(want), (line, want, got)


# (line, the Xid's trigger, what else the catalogue names in it): Xid 119's text is the GSP
# timeout in NVRM's words, so the catalogue also names nvidia_gsp_timeout; the recorder names
# one trigger per line, the Xid's
XID_LINES = [
    ("NVRM: Xid (PCI:0000:3d:00): 79, pid=1234, GPU has fallen off the bus.", "nvidia_xid_79", ()),
    (
        "NVRM: Xid (PCI:0000:3d:00): 119, pid=9, Timeout waiting for RPC from GSP!",
        "nvidia_xid_119",
        ("nvidia_gsp_timeout",),
    ),
    ("NVRM: Xid (PCI:0000:3d:00): 13, Graphics Exception: ESR 0x5", None, ()),
    ("NVRM: Xid (PCI:0000:3d:00): 31, pid=77, Ch 00000008, intr 10000000. MMU Fault", None, ()),
]


@pytest.mark.parametrize(("line", "tag", "also"), XID_LINES)
def test_only_the_hang_xids_trigger(line: str, tag: str | None, also: tuple[str, ...]) -> None:
    assert _recorder_says(line) == ({tag} if tag else set())
    assert _catalogue_says(line) == ({tag, *also} if tag else set())


MCE = [
    ("mce: [Hardware Error]: CPU 3: Machine Check Exception: 5 Bank 4: b200000000070005", True),
    ("Kernel panic - not syncing: Fatal machine check", True),
    ("mce: [Hardware Error]: Machine check events logged", False),
]


@pytest.mark.parametrize(("line", "fires"), MCE)
def test_only_an_uncorrected_machine_check_triggers(line: str, fires: bool) -> None:
    assert bool(_recorder_says(line)) is fires
    assert bool(_catalogue_says(line)) is fires


HUNG = "INFO: task llama-server:4321 blocked for more than 120 seconds."


@pytest.mark.parametrize(
    ("prio", "fires"),
    [(3, True), (0, True), (6, True), (11, False), (12, False), (14, False), (190, False)],
)
def test_the_facility_decides(prio: int, fires: bool) -> None:
    # `FAC_LEVEL,seq,ts,-;`: facility = prio >> 3; a userspace write is LOG_USER (1) or more
    raw = f"{prio},17,1000,-;{HUNG}\n".encode()
    assert (triggers.match(raw) is not None) is fires


def test_garbage_headers_never_trigger() -> None:
    for raw in (b"", b";" + HUNG.encode(), b"x,1,2,-;" + HUNG.encode(), HUNG.encode()):
        assert triggers.match(raw) is None


def test_continuation_lines_are_not_the_message() -> None:
    raw = b"6,5,6,-;usb 1-1: new device\n SUBSYSTEM=usb\n DEVICE=+usb:1-1 blocked for more\n"
    assert triggers.match(raw) is None


def _trigger_renderings() -> list[tuple[str, list[str]]]:
    from tests.catalogue.test_formats import RENDERINGS, _lines

    return [
        (f"{tag}:{f.fmt[:40]}", _lines(f, args))
        for tag, s, f, args in RENDERINGS
        if s.trigger is not None and not f.program
    ]


@pytest.mark.parametrize(("name", "lines"), _trigger_renderings())
def test_every_source_format_of_a_trigger_entry_gives_the_same_answer(
    name: str, lines: list[str]
) -> None:
    # the catalogue's formats (the kernel's own wording, tests/catalogue/test_formats.py):
    # a wording the catalogue learnt starts an incident only once the recorder's copy has it
    for line in lines:
        want = _catalogue_says(line)
        got = _recorder_says(line)
        assert got <= want and bool(got) == bool(want), (line, want, got)
