"""The post-mortem journal entry of one report: what `kmsgd-report.service` sends to the
journal and `kmsgd last-boot --format export` prints, so a collector can use it alone.

Field names and the export format are kmsgd.fleet.entry_format's (the contract with `kmsgd fleet`).
The flat fields come from the report's `telemetry.config` (the judged boot's inventory, as
the recorder read it at that boot's start); the whole report goes last in KMSGD_REPORT_JSON,
capped at REPORT_JSON_MAX with what was left out named in KMSGD_REPORT_JSON_CUT.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from kmsgd import __version__
from kmsgd.fleet import entry_format
from kmsgd.judge.changes import ConfigFacts
from kmsgd.report import export, render_json
from kmsgd.report.model import Report

Fields = list[tuple[str, str]]


def _compact(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


def _keep_last(key: str, n: int) -> Callable[[dict[str, Any]], str]:
    def cut(doc: dict[str, Any]) -> str:
        items = doc.get(key) or []
        if len(items) <= n:
            return ""
        doc[key] = items[-n:]
        return f"{key}: the last {n} of {len(items)}"

    return cut


def _drop(key: str, empty: Any) -> Callable[[dict[str, Any]], str]:
    def cut(doc: dict[str, Any]) -> str:
        if not doc.get(key):
            return ""
        doc[key] = empty
        return f"{key} left out"

    return cut


# Bulkiest and least needed first; the outcome, headline, evidence, time of death, primary
# signature and fingerprint are never cut.
_CUTS = (
    _keep_last("final_kernel", 100),
    _drop("boots", []),
    _keep_last("changes", 50),
    _keep_last("signatures", 20),
    _drop("telemetry", {}),
    _keep_last("final_kernel", 20),
    _drop("source", None),
    _drop("errors", []),
)


def report_json(
    doc: Mapping[str, Any], limit: int = entry_format.REPORT_JSON_MAX
) -> tuple[str, str]:
    """The compact JSON of a `kmsgd.report/1` document within `limit` UTF-8 bytes, and what was
    left out to fit ("" when nothing): "final_kernel: the last 100 of 412; telemetry left out"."""
    text = _compact(doc)
    if len(text.encode()) <= limit:
        return text, ""
    work = dict(doc)
    said = []
    for cut in _CUTS:
        note = cut(work)
        if note:
            said.append(note)
            text = _compact(work)
            if len(text.encode()) <= limit:
                return text, "; ".join(said)
    # Still too big (a headline or evidence line of megabytes): only the verdict.
    keep = ("schema", "boot_id", "hostname", "outcome", "reason", "confidence", "fingerprint")
    small = {k: work.get(k) for k in keep}
    small["headline"] = str(work.get("headline", ""))[:1000]
    return _compact(small), "; ".join([*said, "all but the verdict left out"])


def attribute_fields(config: ConfigFacts | None) -> Fields:
    """KMSGD_KERNEL, _CMDLINE, _CPU, _RAM_BYTES, _BIOS_*, _BOARD, _SYSTEM and the per-GPU
    fields from a report's `telemetry.config`; absent facts give no field."""
    c = config or ConfigFacts()
    host = c.host

    def joined(*keys: str) -> str:
        return " ".join(str(host[k]) for k in keys if host.get(k))

    out: Fields = [
        (entry_format.KERNEL, c.kernel),
        (entry_format.CMDLINE, c.cmdline),
        (entry_format.CPU, str(host.get("cpu_model") or "")),
        (entry_format.RAM_BYTES, str(host.get("mem_total_bytes") or "")),
        (entry_format.BIOS_VENDOR, joined("bios_vendor")),
        (entry_format.BIOS_VERSION, joined("bios_version")),
        (entry_format.BIOS_DATE, joined("bios_date")),
        (entry_format.BOARD, joined("board_vendor", "board_name", "board_version")),
        (entry_format.SYSTEM, joined("sys_vendor", "product_name")),
    ]
    gpus = c.gpus[: entry_format.GPU_MAX]
    out.append((entry_format.GPU_COUNT, str(len(gpus))))
    for i, g in enumerate(gpus):
        values = {
            "PCI": g.device,
            "ID": g.pci_id,
            "SUBSYSTEM": g.subsystem_id,
            "MODEL": g.model,
            "DRIVER": g.driver,
            "DRIVER_VERSION": g.driver_version,
            "VBIOS": g.vbios,
            "FIRMWARE": " ".join(f"{k}={v}" for k, v in sorted(g.firmware.items()) if v),
        }
        out += [(entry_format.gpu_field(i, k), str(v)) for k, v in values.items() if v]
    return [(k, v) for k, v in out if v]


def entry_fields(report: Report, *, report_path: str = "") -> Fields:
    """Every field of the post-mortem entry, KMSGD_REPORT_JSON last: a journal file lists an
    entry's fields by where their values lie in the file, a new value after the old ones, so a
    reader that looks the small fields up one by one (`kmsgd fleet`) finds them before it and
    never decompresses it. The fields `kmsgd fleet` reads are always there, if empty."""
    base = export.journal_fields(
        boot_id=report.boot_id,
        outcome=report.outcome.value,
        confidence=report.confidence,
        headline=report.headline,
        primary_tag=report.primary.tag if report.primary else None,
        fingerprint=report.fingerprint,
        report_path=report_path,
    )
    out: Fields = list(base.items())
    doc = render_json.report_json(report)
    tod = doc.get("time_of_death")
    end = tod.get("last_sign_of_life_wall_us") if isinstance(tod, Mapping) else None
    out += [
        (entry_format.VERSION, __version__),
        (entry_format.REASON, report.reason),
        (entry_format.HOSTNAME, report.hostname),
        (entry_format.END_USEC, str(end) if isinstance(end, int) else ""),
    ]
    out = [(k, v) for k, v in out if v or k in base or k == entry_format.END_USEC]
    attrs = attribute_fields(report.telemetry.config if report.telemetry else None)
    out += [
        *attrs,
        (
            entry_format.CONFIG_ID,
            entry_format.config_id([*attrs, (entry_format.VERSION, __version__)]),
        ),
    ]
    text, cut = report_json(doc)
    if cut:
        out.append((entry_format.REPORT_JSON_CUT, cut))
    out.append((entry_format.REPORT_JSON, text))
    return out


def export_entry(
    report: Report,
    *,
    now_us: int,
    hostname: str = "",
    machine_id: str = "",
    boot_id: str = "",
    report_path: str = "",
) -> bytes:
    """The entry in journal export format, with the fields journald would add itself
    (`_HOSTNAME`, `_MACHINE_ID`, `_BOOT_ID` of the boot that judged) and the time it was made,
    ready for `systemd-journal-remote -o DIR/ -` or a `journalctl -o export` consumer."""
    head: Fields = [("__REALTIME_TIMESTAMP", str(now_us))]
    for name, value in (
        ("_HOSTNAME", hostname or report.hostname),
        ("_MACHINE_ID", machine_id),
        ("_BOOT_ID", boot_id.replace("-", "")),
        ("_TRANSPORT", "journal"),
    ):
        if value:
            head.append((name, value))
    return entry_format.encode_entry([*head, *entry_fields(report, report_path=report_path)])
