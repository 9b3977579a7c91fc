"""The fleet's pure parts: the export format, attributes, the time window, the statistic and
the report's cap in the entry."""

from __future__ import annotations

import json
import struct
from datetime import datetime

import pytest

from kmsgd.errors import BadInput
from kmsgd.fleet import cluster
from kmsgd.fleet import entry_format as f
from kmsgd.fleet.attributes import Attribute, from_fields, ram_label, split_cmdline
from kmsgd.fleet.postmortem import PostMortem
from kmsgd.fleet.render_answer import render
from kmsgd.fleet.shared import Baseline, shared
from kmsgd.fleet.source import Scan
from kmsgd.fleet.window import Window, parse_time, window
from kmsgd.judge.changes import ConfigFacts, GpuFacts
from kmsgd.judge.telemetry_model import Telemetry
from kmsgd.report import publish as publish_mod
from kmsgd.report.entry import entry_fields, report_json
from kmsgd.report.model import Report
from kmsgd.types import Outcome

NOW = datetime(2025, 11, 30, 12, 0).timestamp()


def test_export_fields_text_and_binary() -> None:
    assert f.encode_field("KMSGD_OUTCOME", "hard_freeze") == b"KMSGD_OUTCOME=hard_freeze\n"
    two = "line one\nline two"
    raw = f.encode_field("MESSAGE", two)
    assert raw == b"MESSAGE\n" + struct.pack("<Q", len(two)) + two.encode() + b"\n"
    assert f.encode_field("X", b"\xff\xfe").startswith(b"X\n\x02\0\0\0\0\0\0\0")
    assert f.encode_field("X", "tab\there").startswith(b"X\n")
    assert f.encode_entry([("A", "1"), ("B", "2")]) == b"A=1\nB=2\n\n"
    with pytest.raises(ValueError):
        f.encode_field("lower", "x")
    with pytest.raises(ValueError):
        f.encode_field("A=B", "x")


def test_config_id_is_order_free() -> None:
    a = f.config_id([(f.KERNEL, "6.8"), (f.CMDLINE, "quiet")])
    assert a == f.config_id([(f.CMDLINE, "quiet"), (f.KERNEL, "6.8")])
    assert a != f.config_id([(f.CMDLINE, "quiet iommu=pt"), (f.KERNEL, "6.8")])
    assert len(a) == 16


def test_cmdline_parameters_as_the_kernel_splits_them() -> None:
    line = 'BOOT_IMAGE=/vmlinuz-6.8 root=UUID=ab ro quiet pcie-aspm=off dyndbg="file x.c +p" -- s'
    assert split_cmdline(line) == ["ro", "quiet", "pcie_aspm=off", "dyndbg=file x.c +p"]
    assert split_cmdline("") == []
    assert split_cmdline("a\0b") == ["a", "b"]


def test_attributes_of_an_entry() -> None:
    fields = {
        f.VERSION: "0.1.0",
        f.KERNEL: "6.8.0-49-generic",
        f.CMDLINE: "root=/dev/sda1 iommu=pt",
        f.RAM_BYTES: str(126 * 2**30 + 5),
        f.BIOS_VENDOR: "AMI",
        f.BIOS_VERSION: "1.40",
        f.BIOS_DATE: "03/01/2024",
        f.GPU_COUNT: "2",
        f.gpu_field(0, "ID"): "1002:744c",
        f.gpu_field(0, "DRIVER"): "amdgpu",
        f.gpu_field(0, "FIRMWARE"): "smc=0x00553700 mec=0x1f4",
        f.gpu_field(1, "ID"): "1002:744c",
        f.gpu_field(1, "DRIVER"): "amdgpu",
        f.gpu_field(1, "FIRMWARE"): "smc=0x00553700 mec=0x1f4",
    }
    attrs = from_fields(lambda n: fields.get(n, ""))
    assert attrs == {
        Attribute("kernel", "6.8.0-49-generic"),
        Attribute("cmdline", "iommu=pt"),
        Attribute("ram", "126 GiB"),
        Attribute("bios", "AMI 1.40 (03/01/2024)"),
        Attribute("gpu", "1002:744c"),
        Attribute("gpu driver", "amdgpu"),
        Attribute("gpu firmware", "smc 0x00553700"),
        Attribute("gpu firmware", "mec 0x1f4"),
        Attribute("kmsgd", "0.1.0"),
    }
    assert ram_label("junk") == "" and ram_label(str(512 << 20)) == "512 MiB"


@pytest.mark.parametrize(
    ("spec", "expect"),
    [
        ("now", NOW),
        ("-7d", NOW - 7 * 86400),
        ("12h ago", NOW - 12 * 3600),
        ("@1764400000", 1764400000),
        ("2025-11-01", datetime(2025, 11, 1).timestamp()),
        ("2025-11-01 06:30", datetime(2025, 11, 1, 6, 30).timestamp()),
        ("2025-11-01T06:30:00Z", 1761978600),
        ("today", datetime(2025, 11, 30).timestamp()),
        ("yesterday", datetime(2025, 11, 29).timestamp()),
    ],
)
def test_times(spec: str, expect: float) -> None:
    assert parse_time(spec, NOW) == int(expect * 1e6)


def test_window_defaults_and_refusals() -> None:
    w = window(None, None, NOW)
    assert w.until_us - w.since_us == 30 * 86400 * 1_000_000
    with pytest.raises(BadInput, match="not a time"):
        window("next week", None, NOW)
    with pytest.raises(BadInput, match="is not before"):
        window("-1d", "-2d", NOW)


def pm(box: str, n: int, bad: bool, *attrs: tuple[str, str]) -> PostMortem:
    return PostMortem(
        realtime_us=n,
        box=box,
        host=box,
        boot_id=f"{n:032x}",
        outcome="hard_freeze" if bad else "clean_reboot",
        primary="amdgpu_smu_timeout" if bad else "",
        fingerprint="fp1" if bad else "clean",
        end_us=None,
        message="",
        attributes=frozenset(Attribute(k, v) for k, v in attrs),
    )


def fleet_of(boxes: int, boots: int, bad_boxes: int, bad_per_box: int) -> list[PostMortem]:
    """`boxes` boxes; the first `bad_boxes` lack iommu=pt and freeze `bad_per_box` times."""
    out = []
    for b in range(boxes):
        attrs = [("kernel", f"6.{b % 2}"), ("cmdline", "quiet")]
        if b >= bad_boxes:
            attrs.append(("cmdline", "iommu=pt"))
        for n in range(boots):
            out.append(pm(f"box{b}", b * 100 + n, b < bad_boxes and n < bad_per_box, *attrs))
    return out


def test_the_missing_parameter_ranks_first() -> None:
    pms = fleet_of(10, 10, 3, 4)
    bad = [p for p in pms if p.bad]
    found, note = shared(bad, Baseline.of(pms))
    assert note == ""
    top = found[0]
    assert (top.attribute, top.present) == (Attribute("cmdline", "iommu=pt"), False)
    assert (top.cluster_count, top.cluster_n, top.fleet_count, top.fleet_n) == (12, 12, 30, 100)
    assert top.boxes == 3 and top.difference == pytest.approx(0.7) and top.z > 3.5
    assert top.to_json()["label"] == "without cmdline iommu=pt"
    # kernel 6.0 is on 2 of the 3 freezing boxes and half the fleet: chance, not a cause
    assert all(s.attribute.kind != "kernel" for s in found)


@pytest.mark.parametrize(
    ("pms", "says"),
    [
        (fleet_of(10, 10, 3, 4)[:2], "too few to tell"),
        (fleet_of(10, 10, 1, 5), "one box only"),
        (fleet_of(3, 6, 2, 3), "fleet too small to tell"),
    ],
)
def test_too_small_to_tell(pms: list[PostMortem], says: str) -> None:
    bad = [p for p in pms if p.bad] or pms
    found, note = shared(bad, Baseline.of(pms))
    assert found == () and says in note


def test_two_peers_claiming_one_host_name_are_two_boxes_flagged() -> None:
    """box0 freezes without iommu=pt; a second collector file (another peer) sends freezes
    of its own under box0's name and machine id. The shares count them as two boxes (one
    name is no proof of one box), and the box table and cluster say which file is which."""
    pms = [p._replace(source=p.box) for p in fleet_of(10, 10, 1, 5)]
    impostor = [
        p._replace(source="10.9.8.7", boot_id=f"{p.realtime_us + 5000:032x}")
        for p in pms
        if p.box == "box0"
    ]
    pms += impostor
    bad = [p for p in pms if p.bad]
    base = Baseline.of(pms)
    assert base.boxes == 11
    found, note = shared(bad, base)
    assert "one box only" not in note
    top = found[0]
    assert (top.attribute, top.present, top.boxes) == (Attribute("cmdline", "iommu=pt"), False, 2)

    window = Window(0, 10**6)
    fl = cluster.fleet(Scan("remote", post_mortems=sorted(pms)), window)
    claimants = [b for b in fl.boxes if b.host == "box0"]
    assert sorted(b.source for b in claimants) == ["10.9.8.7", "box0"]
    assert all(b.suspect and b.bad_ends == 5 for b in claimants)
    assert sorted(b.label for b in claimants) == [
        "box0 via remote-10.9.8.7",
        "box0 via remote-box0",
    ]
    top_cluster = fl.clusters[0]
    assert dict(top_cluster.boxes) == {"box0 via remote-10.9.8.7": 5, "box0 via remote-box0": 5}
    assert any("identity box0" in n and "2 collector files" in n for n in fl.notes)
    text = render(fl, "text")
    assert "on 2 boxes" in text and "box0 via remote-10.9.8.7" in text


def test_the_cap_cuts_the_bulk_first_and_says_so() -> None:
    doc = {
        "schema": "kmsgd.report/1",
        "outcome": "hard_freeze",
        "headline": "Hard freeze.",
        "final_kernel": [{"text": "x" * 500, "n": i} for i in range(400)],
        "telemetry": {"devices": ["y" * 1000] * 10},
        "fingerprint": "fp",
    }
    whole, cut = report_json(doc, limit=10**6)
    assert cut == "" and json.loads(whole) == doc
    text, cut = report_json(doc, limit=70_000)
    assert len(text.encode()) <= 70_000
    assert cut == "final_kernel: the last 100 of 400"
    got = json.loads(text)
    assert got["final_kernel"][-1]["n"] == 399 and got["telemetry"] == doc["telemetry"]
    text, cut = report_json(doc, limit=12_000)
    assert "telemetry left out" in cut and "final_kernel: the last 20 of 100" in cut
    text, cut = report_json({**doc, "headline": "z" * 50_000}, limit=5_000)
    assert cut.endswith("all but the verdict left out") and json.loads(text)["outcome"]


def a_report() -> Report:
    gpu = GpuFacts(
        device="0000:03:00.0",
        driver="amdgpu",
        iommu_group_type=None,
        power_cap_w=None,
        pci_id="1002:744c",
        subsystem_id="1da2:e471",
        model="",
        driver_version="",
        vbios="113-D70401XT-N11",
        firmware={"smc": "0x00553700", "mec": "0x000001f4"},
    )
    config = ConfigFacts(
        kernel="6.8.0-49-generic",
        cmdline="root=/dev/sda1 quiet",
        gpus=(gpu,),
        host={"bios_vendor": "AMI", "bios_version": "1.40", "cpu_model": "EPYC"},
    )
    return Report(
        Outcome.HARD_FREEZE,
        "",
        "high",
        "Hard freeze.",
        telemetry=Telemetry(end_wall_us=1_764_400_000_000_000, config=config),
        fingerprint="5e1f0c2a9b7d4e31",
        boot_id="ab" * 16,
        hostname="gpu-1",
    )


def test_the_entry_of_a_report() -> None:
    fields = entry_fields(a_report(), report_path="/var/lib/kmsgd/reports/x.json")
    names = [k for k, _ in fields]
    got = dict(fields)
    assert names[-1] == f.REPORT_JSON and json.loads(got[f.REPORT_JSON])["outcome"] == "hard_freeze"
    assert got["MESSAGE_ID"] == f.MESSAGE_ID and got[f.BOOT_ID] == "ab" * 16
    assert got[f.END_USEC] == ""  # always there, so a reader's look-up never misses
    assert got[f.GPU_COUNT] == "1" and got[f.gpu_field(0, "ID")] == "1002:744c"
    assert got[f.gpu_field(0, "FIRMWARE")] == "mec=0x000001f4 smc=0x00553700"
    assert f.gpu_field(0, "MODEL") not in got  # empty facts give no field
    assert (got[f.BIOS_VENDOR], got[f.CPU], got[f.REPORT_PATH]) == (
        "AMI",
        "EPYC",
        "/var/lib/kmsgd/reports/x.json",
    )
    assert f.REPORT_JSON_CUT not in got and len(got[f.CONFIG_ID]) == 16
    # the fleet reads back the attributes the report side wrote
    attrs = from_fields(lambda n: got.get(n, ""))
    assert Attribute("gpu firmware", "smc 0x00553700") in attrs
    assert Attribute("cmdline", "quiet") in attrs


def test_the_boot_time_service_sends_the_whole_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[dict[str, str]] = []
    monkeypatch.setattr(publish_mod, "send_entry", lambda fields: sent.append(fields) or True)
    publish_mod.publish(a_report(), "ab" * 16, save_dir=None, keep=5, journal=True, textfile=None)
    (fields,) = sent
    assert list(fields)[-1] == f.REPORT_JSON and fields[f.KERNEL] == "6.8.0-49-generic"
