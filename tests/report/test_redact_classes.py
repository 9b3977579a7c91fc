"""The redaction contract, class by class: each class of kmsgd.report.redact.CLASSES and each
way of learning a host name (LEARNT) planted in a log, through `analyze` and `last-boot` in
text, Markdown, JSON and HTML. The plain report must hold the value (so a test can fail), the
redacted one must not, and the kernel facts an operator needs must stay."""

from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import make_proc
from scenario import Machine

from kmsgd.cli import main
from kmsgd.commands.analyze import analyze
from kmsgd.report.redact import CLASSES, LEARNT, Redactor, redact_output

FORMATS = ("text", "md", "json", "html")
COLUMN = LEARNT[-1]  # the host column: a syslog/journal line, not text inside a message
KEPT = ("0000:05:00.0", "amdgpu", "6.8.0-49-generic", "amdgpu_smu_timeout")
CULPRIT = "amdgpu 0000:05:00.0: amdgpu: SMU: No response msg_reg: 12 resp_reg: 0"


@pytest.mark.parametrize("c", CLASSES, ids=lambda c: c.kind)
def test_each_class_masks_its_example(c: object) -> None:
    assert hasattr(c, "example")
    out = Redactor().redact(c.example)  # type: ignore[attr-defined]
    assert c.secret in c.example and c.secret not in out  # type: ignore[attr-defined]
    assert re.search(r"<[a-z-]+-1>", out)


@pytest.mark.parametrize("learnt", LEARNT[:-1], ids=lambda x: x.secret)
def test_a_name_the_text_announces_is_masked_everywhere(learnt: object) -> None:
    example, name = learnt.example, learnt.secret  # type: ignore[attr-defined]
    out = Redactor().redact(f"{example}\nlater: {name}: link down")
    assert name not in out and out.count("<host-1>") == 2


def _journal_log(examples: list[str]) -> str:
    """The report shows the last 25 lines (report.model.FINAL_SHOW): one log per table."""
    lines = [f"Nov 14 13:44:01 {COLUMN.secret} kernel: Linux version 6.8.0-49-generic #49"]
    lines += [f"Nov 14 13:46:{i:02d} {COLUMN.secret} kernel: {e}" for i, e in enumerate(examples)]
    lines.append(f"Nov 14 14:01:12 {COLUMN.secret} kernel: {CULPRIT}")
    return "\n".join(lines) + "\n"


def _dmesg_log() -> str:
    """dmesg -T has no host column: only what the lines say names the machine."""
    lines = ["[    0.000000] Linux version 6.8.0-49-generic #49"]
    lines += [f"[    1.{i:06d}] {x.example}" for i, x in enumerate(LEARNT[:-1])]
    # each name again, where nothing says it is a host name
    lines += [f"[    2.{i:06d}] NFS: {x.secret}: link down" for i, x in enumerate(LEARNT[:-1])]
    lines.append(f"[  900.000000] {CULPRIT}")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def analyzed() -> dict[tuple[str, str, bool], str]:
    out = {}
    logs = (
        ("classes", _journal_log([c.example for c in CLASSES])),
        ("learnt", _journal_log([x.example for x in LEARNT[:-1]])),
        ("dmesg", _dmesg_log()),
    )
    for name, log in logs:
        for fmt in FORMATS:
            for redact in (False, True):
                src = io.BytesIO(log.encode())
                out[name, fmt, redact] = analyze(src, name="ticket", fmt=fmt, redact=redact)
    return out


def _secret_in(secret: str, out: str, fmt: str) -> bool:
    # Markdown escapes _ and < in prose, HTML escapes & and <; JSON nothing these values hold
    return (
        secret in out
        or (fmt == "md" and secret in out.replace("\\", ""))
        or (fmt == "html" and secret in html.unescape(out))
    )


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("c", CLASSES, ids=lambda c: c.kind)
def test_analyze_masks_each_class(analyzed: dict, c: object, fmt: str) -> None:
    secret = c.secret  # type: ignore[attr-defined]
    assert _secret_in(secret, analyzed["classes", fmt, False], fmt)
    assert not _secret_in(secret, analyzed["classes", fmt, True], fmt)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("learnt", LEARNT, ids=lambda x: x.secret)
def test_analyze_masks_each_learnt_host_name(analyzed: dict, learnt: object, fmt: str) -> None:
    name = learnt.secret  # type: ignore[attr-defined]
    assert name in analyzed["learnt", fmt, False]
    assert name not in analyzed["learnt", fmt, True]
    if learnt is not COLUMN:  # dmesg-only input: the name is learnt from the lines alone
        assert name in analyzed["dmesg", fmt, False]
        assert name not in analyzed["dmesg", fmt, True]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("log", ["classes", "learnt", "dmesg"])
def test_redaction_keeps_the_kernel_facts(analyzed: dict, log: str, fmt: str) -> None:
    out = analyzed[log, fmt, True]
    for fact in (*KEPT, "900.000000" if log == "dmesg" else "14:01:12"):
        assert fact in out, fact
    if fmt == "json":
        plain, red = json.loads(analyzed[log, fmt, False]), json.loads(out)
        assert plain.keys() == red.keys() and plain["outcome"] == red["outcome"]


def test_domains_are_learnt_once_and_masked_everywhere() -> None:
    r = Redactor()
    out = r.redact(
        "systemd[1]: Hostname set to <gpu-box-07.lab.example.net>.\n"
        "nfs: server nas2.lab.example.net OK; lab.example.net; GPU-BOX-07 and gpu-box-07"
    )
    assert "example" not in out and "gpu-box-07" not in out.lower()
    assert out.count("<domain-1>") == 3 and out.count("<host-1>") == 3
    assert "<host-2>.<domain-1>" in out  # nas2: another host of the same domain


def test_json_is_redacted_value_by_value() -> None:
    """An escape in a JSON string (\\n) must not glue the next value to it: each string is
    redacted as the value it is."""
    doc = {"lines": ["a\n10.1.2.3", "host\tgpu-7"], "hostname": "gpu-7", "n": 3}
    out = redact_output(json.dumps(doc, indent=2), "json")
    back = json.loads(out)
    assert back == {"lines": ["a\n<ip-1>", "host\t<host-1>"], "hostname": "<host-1>", "n": 3}


def test_systemd_unit_instances_and_public_sites_stay() -> None:
    text = (
        "Started getty@tty1.service and user@1000.service; see https://bugzilla.kernel.org/; "
        "Serial: 8250/16550 driver, 4 ports; pci 0000:00:1f.3; up 12:34:56; std::vector"
    )
    assert Redactor().redact(text) == text


@pytest.mark.parametrize(
    "line",
    [
        # lines of tests/corpus an earlier pattern masked words of
        "sysrq: Task dump for CPU 0:",
        "Uhhuh. NMI received for unknown reason 29 on CPU 0.",
        "not recommended or intended for use in any production",
        "reflector.go:256] k8s.io/kubernetes/pkg/kubelet/config/apiserver.go:47",
        "ntpd_intres[1808]: DNS 0.centos.pool.ntp.org",
        "[UFW BLOCK] SRC=0.0.0.0 DST=224.0.0.1 and lo 127.0.0.1 ::1",
        "[root@localhost ~]# dmesg | grep -i amdgpu",
    ],
)
def test_prose_and_addresses_every_machine_has_stay(line: str) -> None:
    assert Redactor().redact(line) == line


def test_an_address_in_a_file_name_is_no_host_name() -> None:
    line = "10:57:49 journal-remote: File remote-10.253.32.164.journal corrupted"
    assert (
        Redactor().redact(line) == "10:57:49 journal-remote: File remote-<ip-1>.journal corrupted"
    )


# -- last-boot ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def last_boot(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str, bool], str]:
    out = {}
    for table, examples in (
        ("classes", [c.example for c in CLASSES]),
        ("learnt", [x.example for x in LEARNT[:-1]]),
    ):
        for (fmt, redact), text in _played(tmp_path_factory.mktemp(table), examples).items():
            out[table, fmt, redact] = text
    return out


def _played(tmp: Path, examples: list[str]) -> dict[tuple[str, bool], str]:
    m = Machine(tmp)
    b = m.boot()
    for e in examples:
        b.log(e, 6)
    b.log("amdgpu 0000:03:00.0: amdgpu: SMU: I'm not done with your previous command", 3)
    b.run(5)
    b.die()
    m.boot(after_s=30).run(2)
    proc = make_proc(tmp / "live-proc", m.boots[-1].boot_id)
    runner = CliRunner()
    out = {}
    for fmt in FORMATS:
        for redact in (False, True):
            args = ["last-boot", "--ring", str(m.ring), "--proc", str(proc), "--no-journal"]
            args += ["--format", fmt] + (["--redact"] if redact else [])
            res = runner.invoke(main, args)
            assert res.exit_code == 0, res.output
            out[fmt, redact] = res.stdout
    return out


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("c", CLASSES, ids=lambda c: c.kind)
def test_last_boot_masks_each_class(last_boot: dict, c: object, fmt: str) -> None:
    secret = c.secret  # type: ignore[attr-defined]
    assert _secret_in(secret, last_boot["classes", fmt, False], fmt)
    assert not _secret_in(secret, last_boot["classes", fmt, True], fmt)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("learnt", LEARNT[:-1], ids=lambda x: x.secret)
def test_last_boot_masks_each_learnt_host_name(last_boot: dict, learnt: object, fmt: str) -> None:
    name = learnt.secret  # type: ignore[attr-defined]
    assert name in last_boot["learnt", fmt, False]
    assert name not in last_boot["learnt", fmt, True]


@pytest.mark.parametrize("fmt", FORMATS)
def test_last_boot_keeps_the_boot_id_and_the_machine_name_goes(last_boot: dict, fmt: str) -> None:
    plain, red = last_boot["classes", fmt, False], last_boot["classes", fmt, True]
    assert "gpu-box-7" in plain and "gpu-box-7" not in red  # the recorded name (make_proc)
    assert "0000:03:00.0" in red and "amdgpu" in red


def test_the_docs_table_lists_every_class() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "security.md").read_text()
    for c in CLASSES:
        assert f"| {c.name} |" in doc, c.name
    for x in LEARNT:
        assert f"| {x.name} |" in doc, x.name


def test_html_placeholders_are_text_not_tags() -> None:
    page = "<pre>Hostname set to &lt;gpu-box-07&gt;. gpu-box-07 at 10.1.2.3</pre>"
    out = redact_output(page, "html")
    assert (
        out == "<pre>Hostname set to &lt;&lt;host-1&gt;&gt;. &lt;host-1&gt; at &lt;ip-1&gt;</pre>"
    )


def test_markdown_placeholders_in_prose_are_no_html_tags() -> None:
    md = "Boot `x` on `gpu-box-07`\n\nhost gpu-box-07 at 10.1.2.3 died\n```text\ngpu-box-07\n```\n"
    out = redact_output(md, "md", hosts=["gpu-box-07"])
    assert out == (
        "Boot `x` on `<host-1>`\n\nhost \\<host-1\\> at \\<ip-1\\> died\n```text\n<host-1>\n```\n"
    )


def test_a_name_announced_outside_the_report_is_masked_inside_it() -> None:
    """dmesg only: the command line names the machine at boot, 200 lines before the report's
    final lines, where the name comes back."""
    lines = [
        "[    0.000000] Kernel command line: ip=10.9.8.7::10.9.8.1:255.0.0.0:gpu-box-21:eth0:off"
    ]
    lines += [f"[    1.{i:06d}] usb 1-{i}: new device" for i in range(200)]
    lines += ["[  800.000000] NFS: gpu-box-21 lost its lease", f"[  900.000000] {CULPRIT}"]
    log = ("\n".join(lines) + "\n").encode()
    assert "gpu-box-21" in analyze(io.BytesIO(log), name="t", fmt="text")
    for fmt in FORMATS:
        assert "gpu-box-21" not in analyze(io.BytesIO(log), name="t", fmt=fmt, redact=True)


@pytest.mark.parametrize(
    ("line", "masked"),
    [
        ("a ::10.1.2.3 b", "a <ip-1> b"),
        ("a 10.1.2.3:: b", "a <ip-1>:: b"),
        ("[::ffff:10.1.2.3]:22", "[<ip-1>]:22"),
        ("peer fe80::1c2a:3bff:fe4d:5e6f%enp11s0, closed", "peer <ip-1>, closed"),
        ("from 10.1.2.3.", "from <ip-1>."),
    ],
)
def test_no_part_of_an_ipv4_address_is_left_next_to_colons(line: str, masked: str) -> None:
    assert Redactor().redact(line) == masked
