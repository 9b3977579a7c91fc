"""amdgpu's `gpu_metrics` sysfs file, decoded (read once per incident snapshot, never sampled).

The file is a C struct, `struct gpu_metrics_v<format>_<content>` in
drivers/gpu/drm/amd/include/kgd_pp_interface.h, starting with `struct metrics_table_header`
{u16 structure_size; u8 format_revision; u8 content_revision}. Format 1 is a dGPU:
v1_0 (Vega 20, not naturally aligned: the compiler pads the u64 after the header), v1_1 to
v1_3 (Navi, Aldebaran: same head, more fields at the end), v1_4/v1_5 (MI300: a different
layout). Formats 2 and 3 are APUs; only their header is kept. Fields the firmware does not
fill are all ones (smu_cmn_init_soft_gpu_metrics memsets the table to 0xff) and left out.
Units as the header documents: temperatures °C, power W, clocks MHz, link speed 0.1 GT/s.
"""

from __future__ import annotations

import struct
from typing import Any

# (name, struct code, offset) per layout
_V1_HEAD = (
    ("temperature_edge_c", "H", 4),
    ("temperature_hotspot_c", "H", 6),
    ("temperature_mem_c", "H", 8),
    ("temperature_vrgfx_c", "H", 10),
    ("temperature_vrsoc_c", "H", 12),
    ("temperature_vrmem_c", "H", 14),
    ("gfx_activity_pct", "H", 16),
    ("umc_activity_pct", "H", 18),
    ("mm_activity_pct", "H", 20),
    ("socket_power_w", "H", 22),
    ("gfxclk_mhz", "H", 54),
    ("socclk_mhz", "H", 56),
    ("uclk_mhz", "H", 58),
    ("throttle_status", "I", 68),
    ("fan_rpm", "H", 72),
    ("pcie_link_width", "H", 74),
    ("pcie_link_speed_01gts", "H", 76),
)
_V1_0 = (
    ("temperature_edge_c", "H", 16),
    ("temperature_hotspot_c", "H", 18),
    ("temperature_mem_c", "H", 20),
    ("temperature_vrgfx_c", "H", 22),
    ("temperature_vrsoc_c", "H", 24),
    ("temperature_vrmem_c", "H", 26),
    ("gfx_activity_pct", "H", 28),
    ("umc_activity_pct", "H", 30),
    ("mm_activity_pct", "H", 32),
    ("socket_power_w", "H", 34),
    ("gfxclk_mhz", "H", 54),
    ("socclk_mhz", "H", 56),
    ("uclk_mhz", "H", 58),
    ("throttle_status", "I", 68),
    ("fan_rpm", "H", 72),
    ("pcie_link_width", "B", 74),
    ("pcie_link_speed_01gts", "B", 75),
)
_V1_3_TAIL = (
    ("voltage_soc_mv", "H", 104),
    ("voltage_gfx_mv", "H", 106),
    ("voltage_mem_mv", "H", 108),
    ("indep_throttle_status", "Q", 112),
)
_V1_4 = (
    ("temperature_hotspot_c", "H", 4),
    ("temperature_mem_c", "H", 6),
    ("temperature_vrsoc_c", "H", 8),
    ("socket_power_w", "H", 10),
    ("gfx_activity_pct", "H", 12),
    ("umc_activity_pct", "H", 14),
    ("throttle_status", "I", 40),
    ("pcie_link_width", "H", 48),
    ("pcie_link_speed_01gts", "H", 50),
)
_V1_5 = (
    *_V1_4[:6],
    ("throttle_status", "I", 104),
    ("pcie_link_width", "H", 112),
    ("pcie_link_speed_01gts", "H", 114),
)

# ASIC-independent throttler bits (drivers/gpu/drm/amd/pm/swsmu/inc/amdgpu_smu.h,
# SMU_THROTTLER_*_BIT): grouped as an operator reads them.
_THROTTLE_GROUPS = (
    ("power", range(0, 12)),  # PPT0..7, SPL, FPPT, SPPT, SPPT_APU
    ("current", range(16, 21)),  # TDC_GFX, TDC_SOC, TDC_MEM, TDC_VDD, TDC_CVIP
    ("edc", range(21, 24)),  # EDC_CPU, EDC_GFX, APCC
    ("temperature", range(32, 44)),  # TEMP_GPU ... TEMP_LIQUID1
    ("vr_hot", range(44, 46)),
    ("prochot", range(46, 48)),
    ("ppm", range(56, 57)),
    ("fit", range(57, 58)),
)


def throttle_reasons(indep: int) -> list[str]:
    """Names of the throttler groups set in an ASIC-independent throttle status."""
    return [name for name, bits in _THROTTLE_GROUPS if any(indep >> b & 1 for b in bits)]


def _fields(raw: bytes, layout: tuple[tuple[str, str, int], ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, code, offset in layout:
        size = struct.calcsize(code)
        if offset + size > len(raw):
            continue
        (value,) = struct.unpack_from("<" + code, raw, offset)
        if value == (1 << (8 * size)) - 1:  # 0xff-filled: not provided by this firmware
            continue
        out[name] = value
    return out


def decode_gpu_metrics(raw: bytes) -> dict[str, Any]:
    """The fields kmsgd reports, by the table's own header; never raises."""
    if len(raw) < 4:
        return {"error": "short"}
    size, fmt, content = struct.unpack_from("<HBB", raw, 0)
    out: dict[str, Any] = {"version": f"{fmt}.{content}", "size": size}
    raw = raw[: size or len(raw)]
    if fmt == 1 and content == 0:
        out.update(_fields(raw, _V1_0))
    elif fmt == 1 and content in (1, 2, 3):
        out.update(_fields(raw, _V1_HEAD))
        if content == 3:
            out.update(_fields(raw, _V1_3_TAIL))
    elif fmt == 1 and content == 4:
        out.update(_fields(raw, _V1_4))
    elif fmt == 1 and content == 5:
        out.update(_fields(raw, _V1_5))
    else:
        out["decoded"] = False  # an APU (format 2, 3) or a newer layout: header only
        return out
    speed = out.pop("pcie_link_speed_01gts", None)
    if speed is not None:
        out["pcie_link_speed_gts"] = speed / 10
    indep = out.get("indep_throttle_status")
    if indep is not None:
        out["throttling"] = throttle_reasons(indep)
    return out


def encode_v1_3(**values: int) -> bytes:
    """A gpu_metrics_v1_3 table (120 bytes) with the given fields and 0xff elsewhere, as
    smu_cmn_init_soft_gpu_metrics leaves them (for tests and the benchmark's fake tree)."""
    buf = bytearray(b"\xff" * 120)
    struct.pack_into("<HBB", buf, 0, 120, 1, 3)
    for name, code, offset in (*_V1_HEAD, *_V1_3_TAIL):
        key = name
        if key in values:
            struct.pack_into("<" + code, buf, offset, values[key])
    return bytes(buf)
