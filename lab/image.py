"""The lab's guest image: a small Debian bookworm built with mmdebstrap, cached by recipe hash.

The image holds only Debian packages plus the lab's own guest agent; kmsgd itself is installed
per lab run onto a qcow2 overlay (see `payload.py`), so the cached base stays pristine.
The mirror is read from this machine's apt sources at build time and never stored in the repo.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from lab.util import LabError, log, run_cmd

SUITE = "bookworm"
RECIPE_VERSION = "4"  # bump when the build steps below change in a way the hash cannot see
IMAGE_SIZE = "2G"
PACKAGES = (
    "systemd",
    "systemd-sysv",
    "udev",
    "kmod",
    "procps",
    "e2fsprogs",  # mkfs.ext4 for the hung-task scenario's loop filesystem
    "python3",
    "python3-systemd",
    "python3-pyudev",
    "python3-structlog",
    "python3-click",
    "linux-image-amd64",
    "initramfs-tools",
    "zstd",
    # the soft-lockup scenario's module (lab/guest/lab-spin), built in the image against the
    # image kernel's own headers: Debian's kernel has no lkdtm or test_lockup
    "linux-headers-amd64",
    "gcc",
    "make",
)
# MODULES=list keeps the initrd at a few MB: only what a virtio disk with ext4 needs.
INITRAMFS_MODULES = ("virtio_pci", "virtio_blk", "virtio_console", "ext4", "crc32c_generic")
GUEST_DIR = Path(__file__).resolve().parent / "guest"
SPIN_DIR = GUEST_DIR / "lab-spin"
SPIN_FILES = ("lab_spin.c", "Kbuild")
# Runs in mmdebstrap's customize stage (chroot with /dev, /proc, /sys mounted): compile the
# module against the installed kernel's headers and put it where modprobe finds it.
SPIN_HOOK = (
    'set -e; rel=$(ls "$1/lib/modules" | sort -V | tail -n 1); '
    'mkdir -p "$1/usr/src/lab-spin" "$1/lib/modules/$rel/extra"; '
    + "".join(f'cp "{SPIN_DIR / f}" "$1/usr/src/lab-spin/"; ' for f in SPIN_FILES)
    + 'chroot "$1" make -s -C "/lib/modules/$rel/build" M=/usr/src/lab-spin modules; '
    'cp "$1/usr/src/lab-spin/lab_spin.ko" "$1/lib/modules/$rel/extra/"; '
    'chroot "$1" depmod "$rel"'
)
AGENT_UNIT = """\
[Unit]
Description=kmsgd lab agent (commands from the host over virtio-serial)
DefaultDependencies=no
After=systemd-udevd.service local-fs.target
Wants=systemd-udevd.service

[Service]
ExecStart=/usr/bin/python3 /usr/local/lib/kmsgd-lab/agent.py
Restart=always
RestartSec=1
# The agent must outlive the memory hog it starts, or the host loses its hands in the guest.
OOMScoreAdjust=-1000
# A memory hog started by the agent is killed alone; systemd's default would stop the agent.
OOMPolicy=continue

[Install]
WantedBy=sysinit.target
"""
FSTAB = "/dev/vda / ext4 rw,errors=remount-ro 0 1\n"


@dataclass(frozen=True, slots=True)
class Image:
    """A built guest: raw ext4 root disk, the kernel and initrd to boot it with -kernel/-initrd."""

    root: Path
    kernel: Path
    initrd: Path
    manifest: dict[str, object]


def cache_root() -> Path:
    """Where images live between runs: $KMSGD_LAB_CACHE, else the XDG cache directory."""
    if env := os.environ.get("KMSGD_LAB_CACHE"):
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "kmsgd-lab"


def recipe_hash() -> str:
    """Hash of everything that shapes the image; a change means a new cache entry."""
    h = hashlib.sha256()
    for part in (SUITE, RECIPE_VERSION, IMAGE_SIZE, *PACKAGES, *INITRAMFS_MODULES, AGENT_UNIT):
        h.update(part.encode() + b"\0")
    h.update((GUEST_DIR / "agent.py").read_bytes())
    for name in SPIN_FILES:
        h.update((SPIN_DIR / name).read_bytes())
    return h.hexdigest()[:16]


def parse_apt_sources(texts: list[tuple[str, str]], suite: str = SUITE) -> list[str]:
    """One-line `deb URI SUITE COMPONENTS` entries for `suite*` from apt source files.

    `texts` holds (file name, content) pairs; `.sources` files are deb822, others one-line.
    Pure, so the mirror never needs to be written anywhere to be tested.
    """
    out: list[str] = []
    for name, text in texts:
        if name.endswith(".sources"):
            for stanza in text.split("\n\n"):
                fields: dict[str, str] = {}
                for line in stanza.splitlines():
                    if line.startswith("#") or ":" not in line or line[:1].isspace():
                        continue
                    key, _, value = line.partition(":")
                    fields[key.strip().lower()] = value.strip()
                if "deb" not in fields.get("types", "").split():
                    continue
                if fields.get("enabled", "yes").lower() == "no":
                    continue
                comps = fields.get("components", "main")
                for uri in fields.get("uris", "").split():
                    for s in fields.get("suites", "").split():
                        if s.startswith(suite):
                            out.append(f"deb {uri} {s} {comps}")
        else:
            for line in text.splitlines():
                words = line.split("#", 1)[0].split()
                if len(words) < 3 or words[0] != "deb":
                    continue
                words = [w for w in words if not w.startswith("[")]  # drop [options]
                if len(words) >= 3 and words[2].startswith(suite):
                    out.append(" ".join(words))
    return list(dict.fromkeys(out))


def host_mirrors() -> list[str]:
    """The bookworm entries of this machine's apt sources (read at run time only)."""
    files = [Path("/etc/apt/sources.list")]
    src_dir = Path("/etc/apt/sources.list.d")
    if src_dir.is_dir():
        files += sorted(p for p in src_dir.iterdir() if p.suffix in (".list", ".sources"))
    texts = [(p.name, p.read_text(errors="replace")) for p in files if p.is_file()]
    mirrors = parse_apt_sources(texts)
    if not mirrors:
        raise LabError(f"no {SUITE} entry in this machine's apt sources; cannot build the image")
    return mirrors


def ensure_image(*, rebuild: bool = False) -> Image:
    """Return the cached image for the current recipe, building it first when missing."""
    key_dir = cache_root() / f"{SUITE}-{recipe_hash()}"
    if rebuild and key_dir.exists():
        shutil.rmtree(key_dir)
    if not (key_dir / "manifest.json").is_file():
        build_image(key_dir)
    manifest = json.loads((key_dir / "manifest.json").read_text())
    return Image(key_dir / "root.img", key_dir / "vmlinuz", key_dir / "initrd.img", manifest)


def build_image(key_dir: Path) -> None:
    """mmdebstrap a minbase bookworm, configure it for the lab, make a raw ext4 disk of it."""
    if os.geteuid() != 0:
        raise LabError("building the lab image needs root (mmdebstrap --mode=root, mkfs.ext4 -d)")
    for tool in ("mmdebstrap", "mkfs.ext4"):
        if shutil.which(tool) is None:
            raise LabError(f"{tool} is missing: apt-get install mmdebstrap e2fsprogs")
    started = time.monotonic()
    tmp = key_dir.with_name(key_dir.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    rootfs = tmp / "rootfs"
    tmp.mkdir(parents=True)
    modules = "\n".join(INITRAMFS_MODULES)
    setup_hook = (
        'mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/usr/share/initramfs-tools/modules.d" && '
        'printf "MODULES=list\\n" > "$1/etc/initramfs-tools/conf.d/kmsgd-lab" && '
        f'printf "{modules}\\n" > "$1/usr/share/initramfs-tools/modules.d/kmsgd-lab"'
    )
    log(f"building guest image {key_dir.name} (mmdebstrap, a minute or two)")
    run_cmd(
        [
            "mmdebstrap",
            "--variant=minbase",
            "--mode=root",
            "--format=directory",
            "--include=" + ",".join(PACKAGES),
            "--setup-hook=" + setup_hook,
            "--customize-hook=" + SPIN_HOOK,
            SUITE,
            str(rootfs),
            *host_mirrors(),
        ],
        timeout=1200,
    )
    configure_rootfs(rootfs)
    kernels = sorted((rootfs / "boot").glob("vmlinuz-*"))
    if not kernels:
        raise LabError("no kernel in the built image")
    release = kernels[-1].name.removeprefix("vmlinuz-")
    shutil.copy2(kernels[-1], tmp / "vmlinuz")
    shutil.copy2(rootfs / "boot" / f"initrd.img-{release}", tmp / "initrd.img")
    kmods = rootfs / "lib/modules" / release
    manifest: dict[str, object] = {
        "suite": SUITE,
        "recipe": recipe_hash(),
        "kernel": release,
        "packages": list(PACKAGES),
        "initrd_bytes": (tmp / "initrd.img").stat().st_size,
        "lkdtm_module": any(kmods.rglob("lkdtm.ko*")),
        "test_lockup_module": any(kmods.rglob("test_lockup.ko*")),
        "lab_spin_module": (kmods / "extra" / "lab_spin.ko").is_file(),
        "kernel_config": kernel_config_facts(rootfs / "boot" / f"config-{release}"),
    }
    run_cmd(
        [
            "mkfs.ext4",
            "-q",
            "-L",
            "kmsgd-root",
            "-d",
            str(rootfs),
            str(tmp / "root.img"),
            IMAGE_SIZE,
        ],
        timeout=300,
    )
    shutil.rmtree(rootfs)
    manifest["build_s"] = round(time.monotonic() - started, 1)
    (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    shutil.rmtree(key_dir, ignore_errors=True)
    tmp.rename(key_dir)
    # Images of older recipes are dead weight (~700 MB each) in a CI cache: drop them.
    for old in key_dir.parent.glob(f"{SUITE}-*"):
        if old != key_dir and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
    log(f"image built in {manifest['build_s']} s: kernel {release}")


def kernel_config_facts(config: Path) -> dict[str, str]:
    """The kernel options the lockup scenarios depend on, as the Debian kernel sets them."""
    wanted = (
        "CONFIG_LKDTM",
        "CONFIG_TEST_LOCKUP",
        "CONFIG_DETECT_HUNG_TASK",
        "CONFIG_SOFTLOCKUP_DETECTOR",
        "CONFIG_HARDLOCKUP_DETECTOR",
        "CONFIG_MAGIC_SYSRQ",
        "CONFIG_PSTORE_RAM",
        "CONFIG_BOOTPARAM_HUNG_TASK_PANIC",
        "CONFIG_BOOTPARAM_SOFTLOCKUP_PANIC",
        "CONFIG_MODULE_SIG_FORCE",
    )
    facts = dict.fromkeys(wanted, "absent")
    if config.is_file():
        for line in config.read_text().splitlines():
            for name in wanted:
                if line.startswith(name + "="):
                    facts[name] = line.split("=", 1)[1]
                elif line == f"# {name} is not set":
                    facts[name] = "n"
    return facts


def configure_rootfs(rootfs: Path) -> None:
    """Make the bootstrap bootable and drivable: fstab, agent, autologin, ramoops, no mirror."""
    (rootfs / "etc/fstab").write_text(FSTAB)
    (rootfs / "etc/hostname").write_text("kmsgd-lab\n")
    (rootfs / "etc/hosts").write_text("127.0.0.1 localhost\n127.0.1.1 kmsgd-lab\n")
    # The guest needs no package sources; the host's mirror must not travel in the image.
    for p in [rootfs / "etc/apt/sources.list", *(rootfs / "etc/apt/sources.list.d").glob("*")]:
        p.unlink(missing_ok=True)
    (rootfs / "etc/machine-id").write_text("")  # each run's first boot makes its own
    (rootfs / "var/log/journal").mkdir(parents=True, exist_ok=True)
    (rootfs / "etc/modules-load.d/kmsgd-lab.conf").write_text("ramoops\n")
    agent_dir = rootfs / "usr/local/lib/kmsgd-lab"
    agent_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy2(GUEST_DIR / "agent.py", agent_dir / "agent.py")
    (rootfs / "etc/systemd/system/kmsgd-lab-agent.service").write_text(AGENT_UNIT)
    getty = rootfs / "etc/systemd/system/serial-getty@ttyS0.service.d"
    getty.mkdir(parents=True, exist_ok=True)
    (getty / "autologin.conf").write_text(
        "[Service]\nExecStart=\nExecStart=-/sbin/agetty --autologin root --keep-baud "
        "115200,57600,38400,9600 %I $TERM\n"
    )
    run_cmd(["chroot", str(rootfs), "passwd", "-d", "root"], timeout=60)
    run_cmd(["chroot", str(rootfs), "systemctl", "enable", "kmsgd-lab-agent.service"], timeout=60)
    run_cmd(["chroot", str(rootfs), "systemctl", "mask", "getty@tty1.service"], timeout=60)
