"""What a boot ran on, as a set of attributes the fleet can count: kernel, each command-line
parameter, GPUs with their driver, VBIOS and firmware, BIOS, board, CPU, RAM, kmsgd.

An attribute is a (kind, value) pair, e.g. ("cmdline", "iommu=pt") or ("gpu firmware",
"smc 0x00553700"). A boot's attributes are a frozenset; boots of one box usually share one,
so `Interner` hands out the same object for the same fields and counting can go per distinct
set instead of per boot.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

from kmsgd.fleet import entry_format
from kmsgd.types import bounded_int


class Attribute(NamedTuple):
    """One thing a boot ran on. `kind` is a short lower-case noun, `value` what it was."""

    kind: str
    value: str

    def label(self) -> str:
        return f"{self.kind} {self.value}"


Attributes = frozenset[Attribute]

# Command-line parameters that name one box's disks or images: they are the box, not its
# configuration, and the kernel release already stands for BOOT_IMAGE.
IGNORED_PARAMS = frozenset(
    {"BOOT_IMAGE", "initrd", "root", "resume", "resume_offset", "cryptdevice", "rd.luks.uuid"}
)


def split_cmdline(cmdline: str) -> list[str]:
    """Parameters as the kernel splits them (lib/cmdline.c next_arg): whitespace separates,
    double quotes group; dashes and underscores in a name are the same parameter
    (Documentation/admin-guide/kernel-parameters.rst). `--` ends the kernel's part."""
    params: list[str] = []
    cur: list[str] = []
    quoted = False
    for ch in cmdline.replace("\0", " ") + " ":
        if ch == '"':
            quoted = not quoted
        elif ch.isspace() and not quoted:
            if cur:
                params.append("".join(cur))
                cur = []
        else:
            cur.append(ch)
    out = []
    for p in params:
        if p == "--":
            break
        name, eq, value = p.partition("=")
        name = name.replace("-", "_")
        if name in IGNORED_PARAMS:
            continue
        out.append(f"{name}{eq}{value}")
    return out


def ram_label(raw: str) -> str:
    """MemTotal in bytes -> "126 GiB" (whole GiB; the kernel's reserve makes it a bit under
    the installed size, the same way on identical boxes)."""
    ram = bounded_int(raw, 0, 2**64)  # more than a 64-bit MemTotal is no size
    if ram is None:
        return ""
    gib = ram / 2**30
    return f"{gib:.0f} GiB" if gib >= 1 else f"{ram >> 20} MiB"


def _gpu_attributes(get: Callable[[str], str], count: int) -> list[Attribute]:
    out = []
    for i in range(min(count, entry_format.GPU_MAX)):

        def g(key: str, i: int = i) -> str:
            return get(entry_format.gpu_field(i, key))

        pci_id, model = g("ID"), g("MODEL")
        if pci_id or model:
            out.append(Attribute("gpu", " ".join(x for x in (pci_id, model) if x)))
        driver = " ".join(x for x in (g("DRIVER"), g("DRIVER_VERSION")) if x)
        if driver:
            out.append(Attribute("gpu driver", driver))
        if g("VBIOS"):
            out.append(Attribute("gpu vbios", g("VBIOS")))
        for fw in g("FIRMWARE").split():
            name, _, version = fw.partition("=")
            out.append(Attribute("gpu firmware", f"{name} {version}".strip()))
    return out


def from_fields(get: Callable[[str], str]) -> Attributes:
    """The attributes of one entry; `get(name)` gives a field's text ("" when absent)."""
    attrs: list[Attribute] = []
    for kind, name in (
        ("kernel", entry_format.KERNEL),
        ("cpu", entry_format.CPU),
        ("board", entry_format.BOARD),
    ):
        if get(name):
            attrs.append(Attribute(kind, get(name)))
    if get(entry_format.SYSTEM):
        attrs.append(Attribute("system", get(entry_format.SYSTEM)))
    bios = " ".join(x for x in (get(entry_format.BIOS_VENDOR), get(entry_format.BIOS_VERSION)) if x)
    if bios:
        date = get(entry_format.BIOS_DATE)
        attrs.append(Attribute("bios", f"{bios} ({date})" if date else bios))
    if get(entry_format.RAM_BYTES) and ram_label(get(entry_format.RAM_BYTES)):
        attrs.append(Attribute("ram", ram_label(get(entry_format.RAM_BYTES))))
    attrs += [Attribute("cmdline", p) for p in split_cmdline(get(entry_format.CMDLINE))]
    count = min(
        bounded_int(get(entry_format.GPU_COUNT) or "0", 0, 2**31) or 0, entry_format.GPU_MAX
    )
    attrs += _gpu_attributes(get, count)
    if get(entry_format.VERSION):
        attrs.append(Attribute("kmsgd", get(entry_format.VERSION)))
    return frozenset(attrs)


def attribute_field_names(gpus: int) -> tuple[str, ...]:
    """The fields that decide a boot's attributes when it has `gpus` GPUs, in a fixed order."""
    base = (
        entry_format.VERSION,
        entry_format.KERNEL,
        entry_format.CMDLINE,
        entry_format.CPU,
        entry_format.RAM_BYTES,
        entry_format.BIOS_VENDOR,
        entry_format.BIOS_VERSION,
        entry_format.BIOS_DATE,
        entry_format.BOARD,
        entry_format.SYSTEM,
        entry_format.GPU_COUNT,
    )
    return base + tuple(
        entry_format.gpu_field(i, k)
        for i in range(min(gpus, entry_format.GPU_MAX))
        for k in entry_format.GPU_KEYS
    )


class Interner:
    """Hands out one frozenset per distinct combination of attribute fields."""

    def __init__(self) -> None:
        self._seen: dict[tuple[object, ...], Attributes] = {}

    def __len__(self) -> int:
        return len(self._seen)

    def get(self, key: tuple[object, ...], fields: Callable[[], Mapping[str, str]]) -> Attributes:
        """The set for `key` (the raw values of `attribute_field_names`); `fields` gives
        them as text, called only the first time a key is seen."""
        found = self._seen.get(key)
        if found is None:
            text = fields()
            found = self._seen[key] = from_fields(lambda n: text.get(n, ""))
        return found
