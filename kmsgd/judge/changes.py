"""What changed between two inventories, and what the forensic sysctls were in a boot.

A GPU missing after a power trip, `iommu=pt` added to the command line (the amdgpu freeze's fix;
both in docs/incidents.md), a power cap lowered: the report lists these against the previous
boot. Inventory payloads are docs/telemetry.md's `inventory` records; SYSCTL payloads are
`{"changes": [{key, desired, old, new, error}]}` (kmsgd/record/sysctl_set.py `to_payload`).
Pure, and tolerant: a malformed payload gives fewer changes, never an exception.
"""

from __future__ import annotations

import enum
import itertools
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from kmsgd.ring.inventory import Attributes, Inventory
from kmsgd.ring.records import Entry, Kind
from kmsgd.ring.sysctl import SysctlRecord, SysctlSetting


class Change(enum.StrEnum):
    """`what` of a change (JSON vocabulary: never rename one)."""

    GPU_MISSING = "gpu_missing"
    GPU_NEW = "gpu_new"
    GPU = "gpu"  # one fact of a GPU present in both (`key` names it)
    IOMMU_MODE = "iommu_mode"
    ASPM_POLICY = "aspm_policy"
    KERNEL = "kernel"
    CMDLINE = "cmdline"
    SYSCTL = "sysctl"


class Weight(enum.StrEnum):
    """`severity` of a change: a GPU gone is major, everything else minor."""

    MAJOR = "major"
    MINOR = "minor"


MAJOR, MINOR = Weight.MAJOR, Weight.MINOR
Value = str | int | float | None  # an inventory or sysctl value as recorded


@dataclass(frozen=True, slots=True)
class Changed:
    """One change between two inventories, or one sysctl kmsgd set (`changes[]` in JSON)."""

    what: Change
    text: str
    when: str
    before: Value = None
    after: Value = None
    severity: Weight = MINOR
    device: str | None = None
    key: str | None = None  # the GPU fact or sysctl that changed
    desired: str | None = None  # a sysctl's wanted value
    error: str | None = None  # why a sysctl could not be set
    wall_us: int | None = None  # when, for changes within a boot


# GPU facts compared across boots: key -> (label, unit, severity). A card that lost its driver
# is as good as missing; link and clocks that move with load are not compared.
GPU_FACTS: dict[str, tuple[str, str, str]] = {
    "driver": ("driver", "", MAJOR),
    "driver_version": ("driver version", "", MINOR),
    "vbios": ("VBIOS", "", MINOR),
    "power1.cap_w": ("power cap", " W", MINOR),
    "power_limit_w": ("power limit", " W", MINOR),
    "iommu_group_type": ("IOMMU domain", "", MINOR),
    "max_link_speed": ("max link speed", "", MINOR),
    "max_link_width": ("max link width", "", MINOR),
    "vram_total_bytes": ("VRAM", " bytes", MINOR),
}
# Command-line words that change with every kernel update: the kernel change already says it.
CMDLINE_NOISE = ("BOOT_IMAGE=", "initrd=")


def _map(x: Any) -> Mapping[str, Any]:
    return x if isinstance(x, Mapping) else {}


def _show(value: Any) -> str:
    if value is None or value == "":
        return "(none)"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def iommu_mode(group_types: Mapping[str, Any]) -> str:
    """`passthrough` (every group `identity`: iommu=pt), `translated` (DMA/DMA-FQ: every GPU
    DMA goes through the IOMMU's page tables), `mixed`, or `none` (no groups seen: IOMMU off,
    or not visible). VFIO's `unmanaged` and `blocked` groups say nothing about the mode."""
    kinds = {str(k) for k, n in _map(group_types).items() if n}
    pt, dma = "identity" in kinds, bool(kinds & {"DMA", "DMA-FQ"})
    return "mixed" if pt and dma else "passthrough" if pt else "translated" if dma else "none"


def _gpus(inv: Inventory) -> dict[str, Attributes]:
    return {str(g["device"]): g for g in inv.gpus if g.get("device")}


@dataclass(frozen=True, slots=True)
class GpuFacts:
    """One GPU's identity and configuration from the inventory (`judge.changes.config_facts`).
    Its fields are its JSON object's keys, in order (report/render_json.py): public names."""

    device: str
    driver: Value
    iommu_group_type: Value
    power_cap_w: Value
    pci_id: str  # "1002:744c", "" when unknown
    subsystem_id: str
    model: str
    driver_version: str
    vbios: str
    firmware: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ConfigFacts:
    """The configuration a report states even when nothing changed (docs/fleet.md)."""

    kernel: str = ""
    cmdline: str = ""
    iommu_mode: str = "none"  # passthrough, translated, mixed, none
    iommu_group_types: Mapping[str, Value] = field(default_factory=dict)
    aspm_policy: str = ""
    gpus: tuple[GpuFacts, ...] = ()
    host: Mapping[str, Value] = field(default_factory=dict)  # BIOS, board, CPU, RAM


def config_facts(inv: Inventory) -> ConfigFacts:
    """The configuration a report states even when nothing changed (the amdgpu freeze: "IOMMU was in
    Translated mode"): kernel, IOMMU mode, ASPM policy, per GPU its identity, driver, firmware,
    IOMMU domain and power cap, and the host (BIOS, board, CPU, RAM): what a fleet groups
    boxes by (docs/fleet.md)."""
    types = {str(k): _value(v) for k, v in inv.iommu_group_types.items()}
    return ConfigFacts(
        kernel=inv.kernel,
        cmdline=inv.cmdline,
        iommu_mode=iommu_mode(types),
        iommu_group_types=types,
        aspm_policy=inv.aspm_policy,
        gpus=tuple(
            GpuFacts(
                device=dev,
                driver=_value(g.get("driver", "")),
                iommu_group_type=_value(g.get("iommu_group_type")),
                power_cap_w=_value(g.get("power1.cap_w", g.get("power_limit_w"))),
                pci_id=_pci_id(g),
                subsystem_id=str(g.get("subsystem_id") or ""),
                model=str(g.get("product") or ""),
                driver_version=str(g.get("driver_version") or ""),
                vbios=str(g.get("vbios") or ""),
                firmware={str(k): str(v) for k, v in _map(g.get("firmware")).items()},
            )
            for dev, g in sorted(_gpus(inv).items())
        ),
        host={str(k): _value(v) for k, v in inv.host.items()},
    )


def _pci_id(gpu: Attributes) -> str:
    """`1002:744c`, or "" when the inventory lacks either half."""
    vendor, device = gpu.get("vendor_id"), gpu.get("device_id")
    return f"{vendor}:{device}" if vendor and device else ""


def _value(x: Any) -> Value:
    return x if x is None or isinstance(x, str | int | float) else str(x)


def _change(what: Change, say: str, when: str, before: Any, after: Any, **extra: Any) -> Changed:
    """One change; its `text` is `say` and `when`, unless `extra` brings its own."""
    fields: dict[str, Any] = {"text": f"{say} {when}"} | extra
    return Changed(what, when=when, before=_value(before), after=_value(after), **fields)


def _flat(value: Any) -> str | None:
    """`4\t4\t1\t7` as `4 4 1 7`: multi-field sysctls compare and print by their fields."""
    return None if value is None else " ".join(str(value).split())


def _words(cmdline: str) -> list[str]:
    try:
        words = shlex.split(cmdline)
    except ValueError:  # an unbalanced quote: the kernel itself would split on blanks
        words = cmdline.split()
    return [w for w in words if not w.startswith(CMDLINE_NOISE)]


def _cmdline(before: str, after: str, when: str) -> list[Changed]:
    old, new = _words(before), _words(after)
    removed = [w for w in old if w not in new]
    added = [w for w in new if w not in old]
    out = []
    for word in removed:
        name = word.partition("=")[0]
        twin = [w for w in added if w.partition("=")[0] == name and "=" in w]
        if len(twin) == 1 and sum(w.partition("=")[0] == name for w in removed) == 1:
            added.remove(twin[0])  # iommu=soft -> iommu=pt is one change, not two
            text = f"kernel command line: {word} → {twin[0]}"
            out.append(_change(Change.CMDLINE, text, when, word, twin[0]))
        else:
            text = f"kernel command line: {word} removed"
            out.append(_change(Change.CMDLINE, text, when, word, None))
    out += [
        _change(Change.CMDLINE, f"kernel command line: {w} added", when, None, w) for w in added
    ]
    return out


def diff_inventory(
    before: Inventory | None, after: Inventory | None, *, when: str
) -> list[Changed]:
    """Changes from one inventory to a later one; [] when either is None.

    `when` ends each change's text ("after the reboot", "during the boot"). GPUs are matched
    by PCI address; a GPU gone is `major`, everything else `minor`.
    """
    if before is None or after is None:
        return []
    b, a = before, after
    out: list[Changed] = []
    gb, ga = _gpus(b), _gpus(a)
    for dev in sorted(gb.keys() - ga.keys()):
        text = f"card {dev} ({gb[dev].get('driver') or '?'}) missing"
        out.append(_change(Change.GPU_MISSING, text, when, dev, None, device=dev, severity=MAJOR))
    for dev in sorted(ga.keys() - gb.keys()):
        text = f"card {dev} ({ga[dev].get('driver') or '?'}) new"
        out.append(_change(Change.GPU_NEW, text, when, None, dev, device=dev))
    for dev in sorted(gb.keys() & ga.keys()):
        for key, (label, unit, severity) in GPU_FACTS.items():
            old, new = gb[dev].get(key), ga[dev].get(key)
            if old != new:
                text = f"card {dev} {label} {_show(old)}{unit} → {_show(new)}{unit}"
                extra = {"device": dev, "key": key, "severity": severity}
                out.append(_change(Change.GPU, text, when, old, new, **extra))
    mode_b = iommu_mode(b.iommu_group_types)
    mode_a = iommu_mode(a.iommu_group_types)
    if mode_b != mode_a:
        text = f"IOMMU mode {mode_b} → {mode_a}"
        out.append(_change(Change.IOMMU_MODE, text, when, mode_b, mode_a))
    for what, label, old, new in (
        (Change.ASPM_POLICY, "ASPM policy", b.aspm_policy, a.aspm_policy),
        (Change.KERNEL, "kernel", b.kernel, a.kernel),
    ):
        if old != new:
            out.append(_change(what, f"{label} {_show(old)} → {_show(new)}", when, old, new))
    out += _cmdline(b.cmdline, a.cmdline, when)
    sb, sa = b.sysctls, a.sysctls
    for key in sorted(sb.keys() | sa.keys()):
        old, new = sb.get(key), sa.get(key)
        if _flat(old) != _flat(new):
            text = f"sysctl {key} {_show(_flat(old))} → {_show(_flat(new))}"
            out.append(_change(Change.SYSCTL, text, when, old, new, key=key))
    return out


def inventories(entries: Iterable[Entry]) -> list[tuple[int, Inventory]]:
    """(wall_us, inventory) of a boot's inventory records, in ring order (written only when
    something changed, so a boot has few)."""
    return [(e.wall_us, e.data) for e in entries if isinstance(e.data, Inventory)]


def changes_within(entries: Iterable[Entry]) -> list[Changed]:
    """Changes between consecutive inventories of one boot (a GPU falling off the bus)."""
    invs = inventories(entries)
    out = []
    for (_, old), (wall, new) in itertools.pairwise(invs):
        out += [replace(c, wall_us=wall) for c in diff_inventory(old, new, when="during the boot")]
    return out


def _sysctl_rows(entries: Iterable[Entry]) -> Iterable[tuple[int, SysctlSetting]]:
    for e in entries:
        if e.kind is Kind.SYSCTL and isinstance(e.data, SysctlRecord):
            for row in e.data.settings:
                yield e.wall_us, row


def sysctl_changes(entries: Iterable[Entry]) -> list[Changed]:
    """What kmsgd's sysctl apply did in this boot: `old → new`, and keys it could not set.

    These decide what the boot would have done on a lockup or an oops: a hard lockup with
    `kernel.hardlockup_panic` missing is a freeze, not a panic with a dump.
    """
    out: list[Changed] = []
    seen: set[str] = set()
    for wall, row in _sysctl_rows(entries):
        key, err = row.key, row.error
        old, new = _flat(row.old), _flat(row.new)
        if err:
            now = f", stays {new}" if new is not None else ""
            text = f"{key} could not be set ({err}){now}"
        elif old is not None and new is not None and old != new:
            text = f"{key} {old} → {new} (set by kmsgd)"
        else:
            continue
        if text not in seen:  # a restarted daemon reports the same failure again
            seen.add(text)
            extra = {"key": key, "desired": row.desired, "error": err, "wall_us": wall}
            out.append(_change(Change.SYSCTL, "", "during the boot", old, new, text=text, **extra))
    return out


def effective_sysctls(entries: Iterable[Entry]) -> dict[str, str]:
    """Key → value in force at the end of the boot: the inventory's read-back values and the
    sysctl records' `new` values, the later record winning."""
    values: dict[str, str] = {}
    for e in entries:
        inv = e.data
        if isinstance(inv, Inventory):
            values.update((k, " ".join(v.split())) for k, v in inv.sysctls.items())
        elif e.kind is Kind.SYSCTL:
            for _, row in _sysctl_rows([e]):
                new = _flat(row.new)
                if new is not None:
                    values[row.key] = new
    return values
