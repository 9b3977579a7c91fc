"""DRM cards under `<sys_root>/class/drm` and the amdgpu extras in their device directory.

`mem_info_vram_used`/`_total` and `mem_info_gtt_*` are driver counters in bytes read without
touching the hardware (amdgpu_vram_mgr.c); `gpu_busy_percent` is computed by the SMU firmware
and may fail with EOPNOTSUPP on some chips, which the sampler records once and backs off.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from kmsgd.sensors.attrfiles import parse_text, read_int, read_small, read_text
from kmsgd.sensors.hwmon import device_identity

_CARD = re.compile(r"^card\d+$")

# device-directory file -> record key; all plain integers
EXTRAS: tuple[tuple[str, str], ...] = (
    ("gpu_busy_percent", "busy_pct"),
    ("mem_busy_percent", "mem_busy_pct"),
    ("mem_info_vram_used", "vram_used_bytes"),
    ("mem_info_gtt_used", "gtt_used_bytes"),
)


@dataclass(frozen=True, slots=True)
class Card:
    """One DRM card (not its connectors): `card1` -> its PCI device."""

    card: str
    device: str  # PCI address
    device_path: str
    driver: str
    extras: tuple[tuple[str, str], ...]  # (record key, file path) present on this card


@dataclass(frozen=True, slots=True)
class CardInfo:
    """Static facts of a card for the inventory."""

    card: str
    device: str
    driver: str
    vendor_id: str  # "1002"
    device_id: str  # "744c"
    subsystem_id: str  # "1da2:e471"
    vbios: str
    link_speed: str  # current, "16.0 GT/s PCIe"
    link_width: int | None
    max_link_speed: str
    max_link_width: int | None
    vram_total_bytes: int | None
    gtt_total_bytes: int | None
    product: str

    def to_payload(self) -> dict[str, Any]:
        return asdict(self)


def read_cards(sys_root: Path) -> list[Card]:
    """Every DRM card with a device link, with the extras files it actually has."""
    base = sys_root / "class" / "drm"
    try:
        names = sorted((n for n in os.listdir(base) if _CARD.match(n)), key=lambda n: (len(n), n))
    except OSError:
        return []
    cards = []
    for name in names:
        link = os.path.join(base, name, "device")
        if not os.path.exists(link):
            continue
        device_path = os.path.realpath(link)
        device, driver = device_identity(device_path)
        extras = tuple(
            (key, os.path.join(device_path, fname))
            for fname, key in EXTRAS
            if os.path.exists(os.path.join(device_path, fname))
        )
        cards.append(Card(name, device, device_path, driver, extras))
    return cards


def parse_uevent(raw: bytes) -> dict[str, str]:
    """KEY=value lines of a sysfs `uevent` file (padding and garbage lines skipped)."""
    out = {}
    for line in parse_text(raw).splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip():
            out[key.strip()] = value.strip("\x00 ")
    return out


def _hex_id(path: str) -> str:
    value = read_int(path)
    return "" if value is None else f"{value:04x}"


def read_card_info(card: Card) -> CardInfo:
    """The card's identity, firmware and link for the inventory; missing files give ""/None."""
    d = card.device_path
    uevent = parse_uevent(read_small(os.path.join(d, "uevent")) or b"")
    vendor_id = _hex_id(os.path.join(d, "vendor"))
    device_id = _hex_id(os.path.join(d, "device"))
    pci_id = uevent.get("PCI_ID", "").lower()
    if pci_id and ":" in pci_id:  # some snapshots have uevent but not vendor/device
        vendor_id = vendor_id or pci_id.split(":")[0]
        device_id = device_id or pci_id.split(":")[1]
    sub_vendor = _hex_id(os.path.join(d, "subsystem_vendor"))
    sub_device = _hex_id(os.path.join(d, "subsystem_device"))
    subsystem = f"{sub_vendor}:{sub_device}" if sub_vendor else uevent.get("PCI_SUBSYS_ID", "")
    return CardInfo(
        card=card.card,
        device=card.device or uevent.get("PCI_SLOT_NAME", ""),
        driver=card.driver or uevent.get("DRIVER", ""),
        vendor_id=vendor_id,
        device_id=device_id,
        subsystem_id=subsystem.lower(),
        vbios=read_text(os.path.join(d, "vbios_version")) or "",
        link_speed=read_text(os.path.join(d, "current_link_speed")) or "",
        link_width=read_int(os.path.join(d, "current_link_width")),
        max_link_speed=read_text(os.path.join(d, "max_link_speed")) or "",
        max_link_width=read_int(os.path.join(d, "max_link_width")),
        vram_total_bytes=read_int(os.path.join(d, "mem_info_vram_total")),
        gtt_total_bytes=read_int(os.path.join(d, "mem_info_gtt_total")),
        product=read_text(os.path.join(d, "product_name")) or "",
    )
