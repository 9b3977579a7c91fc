"""The signature catalogue: every known kernel-log signature, and the scanner over records.

`CATALOGUE` is the ordered tuple of entries (GPU first, then system, then gpu_more.py's
wording added to tags of both, last so that each tag's first entry stays its own);
`match_record` tells which entries one record shows; `find_signatures` scans a sequence of
records. Userspace lines (journal "ident[pid]: text") only match entries that name their
program, so a `grep systemd-shutdown` that sudo or systemd logged is never taken for a
shutdown.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from dataclasses import dataclass

from kmsgd.catalogue.base import DeviceKind, MatchInput, Severity, Signature
from kmsgd.catalogue.core_sweep import CORE_SWEEP_SIGNATURES
from kmsgd.catalogue.core_wording import CORE_WORDING_SIGNATURES
from kmsgd.catalogue.eeh import EEH_SIGNATURES
from kmsgd.catalogue.firmware import FIRMWARE_LOAD_SIGNATURES
from kmsgd.catalogue.fs_words import FS_WORDS_SIGNATURES
from kmsgd.catalogue.gpu import GPU_SIGNATURES, xid_details
from kmsgd.catalogue.gpu_amd import AMD_SWEEP_SIGNATURES
from kmsgd.catalogue.gpu_amd_reset import AMD_RESET_SIGNATURES
from kmsgd.catalogue.gpu_faults import GPU_FAULT_SIGNATURES
from kmsgd.catalogue.gpu_firmware import FIRMWARE_SIGNATURES
from kmsgd.catalogue.gpu_intel import I915_SIGNATURES
from kmsgd.catalogue.gpu_more import MORE_GPU_SIGNATURES
from kmsgd.catalogue.gpu_nvother import NVOTHER_GPU_SIGNATURES
from kmsgd.catalogue.gpu_nvother2 import NVOTHER2_GPU_SIGNATURES
from kmsgd.catalogue.gpu_other import OTHER_GPU_SIGNATURES
from kmsgd.catalogue.gpu_wording import GPU_WORDING_SIGNATURES
from kmsgd.catalogue.gpu_wording2 import GPU_WORDING2_SIGNATURES
from kmsgd.catalogue.gpu_wording26 import GPU_WORDING26_SIGNATURES
from kmsgd.catalogue.hardware import HARDWARE_SIGNATURES, STORAGE_SIGNATURES
from kmsgd.catalogue.host_words import HOST_WORDS_SIGNATURES
from kmsgd.catalogue.indirect import INDIRECT_SIGNATURES
from kmsgd.catalogue.io_sweep import IO_SWEEP_SIGNATURES
from kmsgd.catalogue.iommu_sweep import IOMMU_SWEEP_SIGNATURES
from kmsgd.catalogue.kernel import CPU_SIGNATURES, MEMORY_SIGNATURES
from kmsgd.catalogue.kernel_cut import KERNEL_CUT_SIGNATURES
from kmsgd.catalogue.lifecycle import LIFECYCLE_SIGNATURES
from kmsgd.catalogue.lustre import LUSTRE_SIGNATURES
from kmsgd.catalogue.net import NET_SIGNATURES
from kmsgd.catalogue.net_sweep import NET_SWEEP_SIGNATURES
from kmsgd.catalogue.nmi import NMI_SIGNATURES
from kmsgd.catalogue.platform import PLATFORM_SIGNATURES
from kmsgd.catalogue.probe import PROBE_SIGNATURES
from kmsgd.catalogue.storage_eh import STORAGE_EH_SIGNATURES
from kmsgd.catalogue.storage_hba import STORAGE_HBA_SIGNATURES
from kmsgd.catalogue.storage_md import STORAGE_MD_SIGNATURES
from kmsgd.catalogue.storage_net import STORAGE_NET_SIGNATURES
from kmsgd.catalogue.sweep_debug import SWEEP_DEBUG_SIGNATURES
from kmsgd.catalogue.sweep_debug2 import SWEEP_DEBUG2_SIGNATURES
from kmsgd.catalogue.sweep_platform import SWEEP_PLATFORM_SIGNATURES
from kmsgd.catalogue.sweep_platform2 import SWEEP_PLATFORM2_SIGNATURES
from kmsgd.catalogue.sweep_virt import SWEEP_VIRT_SIGNATURES
from kmsgd.catalogue.sweep_virt2 import SWEEP_VIRT2_SIGNATURES
from kmsgd.catalogue.sys_more import SYS_MORE_SIGNATURES
from kmsgd.catalogue.tags import Tag
from kmsgd.catalogue.virt import VIRT_SIGNATURES
from kmsgd.ring.records import KernelRecord

CATALOGUE: tuple[Signature, ...] = (
    GPU_SIGNATURES
    + OTHER_GPU_SIGNATURES
    + CPU_SIGNATURES
    + MEMORY_SIGNATURES
    + HARDWARE_SIGNATURES
    + STORAGE_SIGNATURES
    + STORAGE_HBA_SIGNATURES  # after hardware.py's: its disk_io_error adds wording
    + STORAGE_MD_SIGNATURES
    + LIFECYCLE_SIGNATURES
    + NET_SIGNATURES
    + NMI_SIGNATURES
    + INDIRECT_SIGNATURES
    + FIRMWARE_SIGNATURES
    + GPU_FAULT_SIGNATURES
    + I915_SIGNATURES
    + STORAGE_NET_SIGNATURES
    + PROBE_SIGNATURES  # the driver core's probe failure, for the GPU drivers' tags
    + FIRMWARE_LOAD_SIGNATURES
    + VIRT_SIGNATURES
    + LUSTRE_SIGNATURES
    + PLATFORM_SIGNATURES
    + STORAGE_EH_SIGNATURES  # older drivers' wording of storage_hba.py's tags
    + FS_WORDS_SIGNATURES  # lifecycle.py's fs_recovery without its prefix
    + CORE_SWEEP_SIGNATURES
    + CORE_WORDING_SIGNATURES  # after the modules whose tags (mce, kernel_bug) it adds wording to
    + IO_SWEEP_SIGNATURES  # the I/O source sweep: new tags, and wording for others'
    + IOMMU_SWEEP_SIGNATURES
    + NET_SWEEP_SIGNATURES
    + SWEEP_PLATFORM_SIGNATURES  # the platform/bus sweep: new tags, and wording for others'
    + SWEEP_PLATFORM2_SIGNATURES
    + MORE_GPU_SIGNATURES  # last: entries that add wording to a tag of another module
    + AMD_SWEEP_SIGNATURES  # the AMD source sweep's, after the modules whose tags it extends
    + AMD_RESET_SIGNATURES
    + EEH_SIGNATURES
    + HOST_WORDS_SIGNATURES  # batch 27's host wordings: new tags, and wording for others'
    + GPU_WORDING_SIGNATURES  # wording of tags of gpu.py, gpu_intel.py, gpu_other.py
    + GPU_WORDING2_SIGNATURES  # batch 26 wordings: the scheduler, virtio-gpu, nouveau, msm, v3d
    + KERNEL_CUT_SIGNATURES  # wording of kernel.py's tags
    + NVOTHER_GPU_SIGNATURES  # the NVIDIA/virtual/SoC sweep's wording, same rule
    + NVOTHER2_GPU_SIGNATURES
    + SYS_MORE_SIGNATURES  # wording of kernel.py's, net.py's, storage_net.py's, GHES tags
    + GPU_WORDING26_SIGNATURES  # batch 26's wording; gvt_vgpu_error is new
    + SWEEP_DEBUG_SIGNATURES  # the debug/corruption sweep's wording of kernel.py's tags
    + SWEEP_DEBUG2_SIGNATURES  # and its new tags
    + SWEEP_VIRT_SIGNATURES  # the virtualisation source sweep: new tags, and wording for others'
    + SWEEP_VIRT2_SIGNATURES
)
BY_TAG: dict[str, Signature] = {}
for _s in CATALOGUE:
    BY_TAG.setdefault(_s.tag, _s)

# trigger word → entries: a line is tried only against entries whose trigger word it has.
# Splitting on punctuation and a set intersection cost ~1 µs a line, a keyword regex ~7 µs.
_BY_WORD: dict[str, tuple[int, ...]] = {}
for _i, _s in enumerate(CATALOGUE):
    for _k in _s.keywords:
        _BY_WORD[_k] = (*_BY_WORD.get(_k, ()), _i)
TRIGGERS = frozenset(_BY_WORD)
_PUNCT = set(string.punctuation) - {"_"}
# a full ASCII table keeps str.translate on its fast path (2× faster than a partial one)
WORD_SPLIT = str.maketrans({chr(i): " " if chr(i) in _PUNCT else chr(i) for i in range(128)})
_USER = re.compile(r"([^\s\[:]+)(?:\[\d+\])?: ")
_KMSG_WRITER = re.compile(r"([\w.@-]+)\[\d+\]: ")
_PCI_FULL = re.compile(r"\b([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\b")
_PCI_NV = re.compile(r"PCI:([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})\b")
# the IOMMUs' own reports name the faulting device without its domain: AMD-Vi's
# "IO_PAGE_FAULT device=%02x:%02x.%x" (drivers/iommu/amd/iommu.c, to 5.x) and VT-d's "Request
# device [%02x:%02x.%d]" (drivers/iommu/intel/dmar.c); domain 0 is the one such boxes have
_PCI_SHORT = re.compile(r"(?:\bdevice=|Request device \[)([0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\b")
_DISK = re.compile(
    r"\b(?:dev |device )?(nvme\d+(?:n\d+(?:p\d+)?)?|sd[a-z]+\d*|vd[a-z]+\d*|"
    r"mmcblk\d+(?:p\d+)?|md\d+|dm-\d+|ata\d+(?:\.\d+)?)\b"
)
_FS = re.compile(r"\((?:device )?([\w.-]+)\)")
_CPU = re.compile(r"\bCPU#?\s?(\d+)|\bcpu (\d+)\b")


@dataclass(frozen=True, slots=True)
class SignatureHit:
    """One record matching one entry: `tag` is the concrete tag (nvidia_xid_79, …)."""

    tag: str
    signature: Signature
    record: KernelRecord
    device: str
    index: int  # position of the record in the scanned sequence


def split_ident(message: str, facility: int | None) -> MatchInput:
    """A record as the matchers see it: userspace lines (facility > 0) lose "ident[pid]: "."""
    if facility:
        m = _USER.match(message)
        if m is not None:
            return MatchInput(message[m.end() :], m.group(1), None)
        return MatchInput(message, "", None)
    return MatchInput(message, None, None)


def extract_device(kind: DeviceKind, text: str) -> str:
    """The device a line is about (PCI address, disk, filesystem device, CPU), or ""."""
    if kind is DeviceKind.PCI:
        # AER names the reporting port first and the failing device after "from"
        src = text.find(" from ")
        m = _PCI_FULL.search(text, src) if src >= 0 else None
        m = m or _PCI_FULL.search(text)
        if m is not None:
            return m.group(1).lower()
        nv = _PCI_NV.search(text)
        if nv is not None:
            return f"{nv.group(1).lower()}.0"
        short = _PCI_SHORT.search(text)
        return f"0000:{short.group(1).lower()}" if short is not None else ""
    if kind in (DeviceKind.DISK, DeviceKind.FS):
        fs = _FS.search(text) if kind is DeviceKind.FS else None
        if fs is not None:
            return fs.group(1)
        d = _DISK.search(text)
        return d.group(1) if d is not None else ""
    if kind is DeviceKind.CPU:
        c = _CPU.search(text)
        return f"cpu{c.group(1) or c.group(2)}" if c is not None else ""
    return ""


def match_record(record: KernelRecord, index: int = 0) -> list[SignatureHit]:
    """Every catalogue entry this record shows (usually none, rarely more than one)."""
    found = match_text(record.message, record.facility, record.ts_usec)
    return [SignatureHit(tag, s, record, dev, index) for tag, s, dev in found] if found else []


def match_text(
    message: str,
    facility: int | None,
    ts_usec: int | None,
    found: frozenset[str] | None = None,
) -> list[tuple[str, Signature, str]]:
    """(tag, entry, device) for every entry a message shows; the hot path of `analyze`.
    `found`: its trigger words when the caller already has them."""
    if found is None:
        found = TRIGGERS.intersection(message.translate(WORD_SPLIT).split())
    if not found:
        return []
    mi = split_ident(message, facility)
    if ts_usec is not None:
        mi = MatchInput(mi.text, mi.ident, ts_usec)
    hits: list[tuple[str, Signature, str]] = []
    seen: set[str] = set()
    if len(found) == 1:
        candidates: Iterable[int] = _BY_WORD[next(iter(found))]
    else:
        candidates = sorted({i for k in found for i in _BY_WORD[k]})
    candidates = list(candidates)
    _match_into(hits, seen, candidates, mi)
    if not hits and facility is None:
        # text without a facility (dmesg): programs that write to /dev/kmsg show there as
        # "ident[pid]: text" (systemd-shutdown, systemd-journald once journald is gone:
        # src/basic/log.c write_to_kmsg), so such a line is also read as that program's
        m = _KMSG_WRITER.match(message)
        if m is not None:
            user = MatchInput(message[m.end() :], m.group(1), ts_usec)
            _match_into(hits, seen, candidates, user)
    return hits


def _match_into(
    hits: list[tuple[str, Signature, str]], seen: set[str], candidates: list[int], mi: MatchInput
) -> None:
    for i in candidates:
        s = CATALOGUE[i]
        if mi.ident is None:
            if s.idents and "kernel" not in s.idents:
                continue
        elif mi.ident not in s.idents:
            continue
        m = s.pattern.search(mi.text)
        if m is None or (s.check is not None and not s.check(m, mi)):
            continue
        tag = s.tag_for(m)
        if tag in seen:
            continue
        seen.add(tag)
        hits.append((tag, s, extract_device(s.device_kind, mi.text)))


def find_signatures(records: Iterable[KernelRecord]) -> list[SignatureHit]:
    """Scan records in order; one hit per (record, tag). Pure, no I/O."""
    hits: list[SignatureHit] = []
    for i, rec in enumerate(records):
        hits.extend(match_record(rec, i))
    return hits


def describe(tag: str) -> tuple[str, str, Severity, Signature | None]:
    """(meaning, next step, severity, entry) of a tag, Xid codes included."""
    xid = xid_details(tag)
    entry = BY_TAG.get(Tag.NVIDIA_XID if xid is not None else tag)
    if xid is not None:
        return xid[0], xid[1], xid[2], entry
    if entry is None:
        return "", "", Severity.INFO, None
    return entry.meaning, entry.next_step, entry.severity, entry


def all_tags() -> list[str]:
    """Every tag the catalogue can emit (Xid family as its known codes)."""
    from kmsgd.catalogue.xid import XID

    tags = [t for t in BY_TAG if t != Tag.NVIDIA_XID]
    return tags + [f"nvidia_xid_{c}" for c in sorted(XID)]
