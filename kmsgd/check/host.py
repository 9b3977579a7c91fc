"""Checks of the machine around kmsgd: what a crash will leave behind, and who reads the metrics.

Paths below are relative to the settings' roots (sys_root for /sys, proc_root for /proc,
fs_root for files under /etc, /usr, /var), so tests give each reader a fake tree.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kmsgd.check.findings import Finding, ok, warn
from kmsgd.config import NODE_EXPORTER_DEFAULTS, TEXTFILE_DIR, Config
from kmsgd.record import sysctl_conf, sysctl_set
from kmsgd.sensors import nvml
from kmsgd.sensors.discover import discover

RAMOOPS = (
    "memmap=1M$0x20000000 ramoops.mem_address=0x20000000 ramoops.mem_size=0x100000 "
    "ramoops.record_size=0x20000 (an address in RAM nothing else uses; docs/operator-guide.md)"
)
# Where systemd looks for an enabled or masked unit (systemd.unit(5), unit load path).
WANTS = (
    "etc/systemd/system/sysinit.target.wants",
    "usr/lib/systemd/system/sysinit.target.wants",
    "lib/systemd/system/sysinit.target.wants",
)
UNIT_FILES = ("usr/lib/systemd/system", "lib/systemd/system")
# journald.conf(5): the main file, then drop-ins from these directories, sorted by name.
JOURNALD_DROPINS = ("usr/lib/systemd/journald.conf.d", "run/systemd/journald.conf.d")


def _read(path: str | Path) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().strip()
    except OSError:
        return None


def sysctl_finding(cfg: Config) -> Finding:
    states = sysctl_set.check(cfg.proc_root, sysctl_conf.resolve_desired(cfg.fs_root))
    drift = [s for s in states if not s.ok]
    if not drift:
        return ok("sysctls", f"all {len(states)} forensic sysctls as wanted")
    words = ", ".join(f"{s.key}={s.current if s.current is not None else '?'}" for s in drift)
    return warn(
        "sysctls",
        f"{len(drift)} of {len(states)} differ: {words} (a lockup may freeze without a dump)",
        "kmsgd sysctl apply (kmsgd.service does at start); kmsgd sysctl check for each value",
    )


def pstore_finding(cfg: Config) -> Finding:
    """Which pstore backend keeps a panic's log across the reboot, and what it misses."""
    backend = _read(cfg.sys_root / "module/pstore/parameters/backend")
    never = "never a power loss or a hardware reset"
    if backend in ("erst",):
        return ok("pstore", f"erst (ACPI APEI) keeps panic and oops logs across a reboot; {never}")
    if backend in ("efi", "efi_pstore"):
        return ok("pstore", f"efi_pstore keeps panic logs in EFI variables (small NVRAM); {never}")
    if backend == "ramoops":
        return ok("pstore", "ramoops keeps panic logs across a warm reboot; not a power cycle")
    if backend and backend != "(null)":
        return ok("pstore", f"{backend} keeps panic logs across a reboot; {never}")
    if os.path.isdir(cfg.sys_root / "firmware/efi"):
        fix = (
            "modprobe efi_pstore (systemd-pstore.service loads it at boot), or ramoops: " + RAMOOPS
        )
    else:
        fix = "add ramoops to the kernel command line: " + RAMOOPS
    return warn("pstore", "no pstore backend: a panic's own log is lost with the reboot", fix)


def systemd_pstore_finding(cfg: Config) -> Finding:
    root = cfg.fs_root
    if not any(os.path.exists(os.path.join(root, d, "systemd-pstore.service")) for d in UNIT_FILES):
        return warn(
            "systemd-pstore",
            "systemd-pstore.service not installed: pstore records stay in NVRAM until it fills",
            "kmsgd reads /sys/fs/pstore itself; delete old records there by hand when it fills",
        )
    mask = os.path.join(root, "etc/systemd/system/systemd-pstore.service")
    if os.path.islink(mask) and os.readlink(mask) == "/dev/null":
        return warn(
            "systemd-pstore", "systemd-pstore.service is masked", "systemctl unmask systemd-pstore"
        )
    if any(os.path.lexists(os.path.join(root, d, "systemd-pstore.service")) for d in WANTS):
        return ok("systemd-pstore", "enabled: moves pstore records to /var/lib/systemd/pstore")
    return warn(
        "systemd-pstore",
        "systemd-pstore.service is not enabled: records pile up in NVRAM",
        "systemctl enable systemd-pstore.service",
    )


def journald_storage(fs_root: Path) -> str:
    """Storage= as journald reads it: journald.conf, then its drop-ins by name."""
    files = [os.path.join(fs_root, "etc/systemd/journald.conf")]
    drop: dict[str, str] = {}
    for d in (*JOURNALD_DROPINS, "etc/systemd/journald.conf.d"):
        try:
            names = os.listdir(os.path.join(fs_root, d))
        except OSError:
            continue
        drop |= {n: os.path.join(fs_root, d, n) for n in names if n.endswith(".conf")}
    storage = "auto"
    for path in files + [drop[n] for n in sorted(drop)]:
        for line in (_read(path) or "").splitlines():
            m = re.match(r"^\s*Storage\s*=\s*(\S+)", line)
            if m:
                storage = m.group(1).lower()
    return storage


def journal_finding(cfg: Config) -> Finding:
    """A persistent journal is the second witness of an earlier boot (and the fleet's)."""
    storage = journald_storage(cfg.fs_root)
    has_dir = os.path.isdir(os.path.join(cfg.fs_root, "var/log/journal"))
    if storage == "persistent" or (storage == "auto" and has_dir):
        return ok("journal", f"persistent (Storage={storage}, /var/log/journal)")
    return warn(
        "journal",
        f"not persistent (Storage={storage}"
        + ("" if has_dir else ", no /var/log/journal")
        + "): earlier boots' logs are lost",
        "mkdir -p /var/log/journal && systemd-tmpfiles --create --prefix /var/log/journal "
        "&& systemctl restart systemd-journald (and Storage=auto or persistent)",
    )


def node_exporter_dir(fs_root: Path) -> str | None:
    """The textfile directory node_exporter reads, from Debian's /etc/default file; None when
    node_exporter is not installed. Debian's build defaults it to TEXTFILE_DIR."""
    installed = os.path.exists(os.path.join(fs_root, "usr/bin/prometheus-node-exporter"))
    for rel in NODE_EXPORTER_DEFAULTS:
        text = _read(os.path.join(fs_root, rel))
        if text is None:
            continue
        installed = True
        for line in text.splitlines():
            m = re.match(r"^\s*ARGS\s*=\s*(.*)$", line)
            if not m:
                continue
            try:
                words = shlex.split(shlex.split(m.group(1))[0] if m.group(1) else "")
            except (ValueError, IndexError):
                continue
            for i, word in enumerate(words):
                if word.startswith("--collector.textfile.directory="):
                    return word.split("=", 1)[1]
                if word == "--collector.textfile.directory" and i + 1 < len(words):
                    return words[i + 1]
    return TEXTFILE_DIR if installed else None


def textfile_finding(cfg: Config) -> Finding:
    if not cfg.textfile_dir:
        return ok("textfile", 'metrics off (textfile_dir = "")')
    reads = node_exporter_dir(cfg.fs_root)
    here = os.path.join(cfg.fs_root, cfg.textfile_dir.lstrip("/"))
    if reads is not None and os.path.normpath(reads) != os.path.normpath(cfg.textfile_dir):
        return warn(
            "textfile",
            f"kmsgd writes {cfg.textfile_dir}, node_exporter reads {reads}",
            f'set textfile_dir = "{reads}" in /etc/kmsgd/kmsgd.toml',
        )
    if not os.path.isdir(here):
        return warn(
            "textfile",
            f"{cfg.textfile_dir} does not exist: no metrics for Prometheus",
            "apt install prometheus-node-exporter (it reads this directory), or set "
            'textfile_dir to the one yours reads (textfile_dir = "" turns metrics off)',
        )
    who = "node_exporter reads it" if reads else "node_exporter not found on this box"
    return ok("textfile", f"{cfg.textfile_dir} ({who})")


def nvidia_finding(cfg: Config, nvml_loader: Callable[[], Any] | None = None) -> Finding:
    gpus = nvml.nvidia_gpus(cfg.sys_root)
    if not gpus:
        return ok("nvml", "no NVIDIA GPU")
    why = nvml.nvml_problem(nvml_loader)
    if why is None:
        return ok("nvml", f"NVML reads {len(gpus)} NVIDIA GPU(s)")
    return warn(
        "nvml",
        f"{len(gpus)} NVIDIA GPU(s), no power or temperature recorded: {why}",
        "apt install python3-pynvml (Debian contrib), or pip install 'kmsgd[nvidia]'; "
        "the NVIDIA driver provides libnvidia-ml.so.1; then systemctl restart kmsgd",
    )


def gpu_cards(sys_root: Path) -> list[tuple[str, str, str]]:
    """(card, device name, driver) for each DRM card (class/drm/cardN, no connectors)."""
    base = sys_root / "class/drm"
    try:
        names = sorted(n for n in os.listdir(base) if re.fullmatch(r"card\d+", n))
    except OSError:
        return []
    out = []
    for name in names:
        dev = os.path.realpath(base / name / "device")
        driver = os.path.basename(os.path.realpath(f"{dev}/driver"))
        out.append((name, os.path.basename(dev), driver if os.path.exists(f"{dev}/driver") else ""))
    return out


def sensor_findings(cfg: Config, nvml_loader: Callable[[], Any] | None = None) -> list[Finding]:
    """Per GPU: which readings the recorder will have at the end (power, temperatures)."""
    cards = gpu_cards(cfg.sys_root)
    if not cards:
        return [ok("sensors", "no GPU under /sys/class/drm")]
    specs = {s.device: s for s in discover(cfg.sys_root)}
    found = []
    for card, device, driver in cards:
        name = f"sensors:{card}"
        what = f"{device} ({driver or 'no driver'})"
        if driver == "nvidia":
            why = nvml.nvml_problem(nvml_loader)
            if why is None:
                found.append(ok(name, f"{what}: power, temperature, memory through NVML"))
            else:
                found.append(warn(name, f"{what}: no readings ({why})", "see the nvml line"))
            continue
        spec = specs.get(device)
        keys = [f.key for f in (*spec.power, *spec.slow)] if spec else []
        if not keys:
            found.append(
                warn(
                    name,
                    f"{what}: no power or temperature sensor found",
                    "load the GPU driver; its hwmon device carries the readings",
                )
            )
            continue
        temps = sum(k.endswith("temp_c") for k in keys)
        power = any(k.endswith("power_w") for k in keys)
        found.append(
            ok(
                name,
                f"{what}: {'power, ' if power else 'no power, '}{temps} temperature(s), "
                f"{len(keys)} readings",
            )
        )
    return found
