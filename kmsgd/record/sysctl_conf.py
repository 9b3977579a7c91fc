"""The sysctl.d file kmsgd ships, and the admin's own sysctl.d files that override it.

systemd-sysctl reads /etc, /run, /usr/local/lib and /usr/lib sysctl.d, a later-sorted file name
winning per key (sysctl.d(5)); kmsgd's file is `60-kmsgd.conf` so an admin's 9x file wins.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from kmsgd.record.sysctl_set import CONF_NAME, DESIRED, NOT_SET, Desired


def render_conf() -> str:
    """The text of the shipped `sysctl.d/60-kmsgd.conf`, generated from `DESIRED` and `NOT_SET`."""
    out = [
        "# Forensic sysctls installed by kmsgd: turn lockups and oopses into panics that leave a",
        "# dump (pstore, kmsgd's ring), and reboot afterwards. Generated from the list in",
        "# kmsgd/record/sysctl_set.py (render_conf); a test keeps this file and that list equal.",
        "#",
        "# Named 60-: sysctl.d(5) sorts all files by name across /etc, /run and /usr/lib and the",
        "# latest name wins. 60 comes after the distribution's 50-default.conf but before the",
        "# usual admin files (/etc/sysctl.d/90-*.conf, 99-sysctl.conf), so an operator overrides a",
        "# value with a later-named file in /etc/sysctl.d, or masks this whole file with",
        "# `ln -s /dev/null /etc/sysctl.d/60-kmsgd.conf`. kmsgd honours those overrides when it",
        "# applies the values at start.",
        "#",
        "# Each key starts with '-': a key this kernel lacks (no such detector) is not an error.",
        "# `kmsgd sysctl check` shows wanted against current values.",
    ]
    for want in DESIRED:
        out += ["", *_comment(want.why), f"-{want.key} = {want.value}"]
    out += ["", "# Deliberately left at the kernel's default (off):"]
    for skip in NOT_SET:
        out += ["", *_comment(skip.why), f"#-{skip.key} = {skip.value}"]
    return "\n".join(out) + "\n"


def _comment(text: str, width: int = 98) -> list[str]:
    lines: list[str] = []
    line = "#"
    for word in text.split():
        if len(line) + 1 + len(word) > width:
            lines.append(line)
            line = "#"
        line += " " + word
    return [*lines, line]


# sysctl.d(5): a file in an earlier directory replaces a same-named file in a later one.
SYSCTL_DIRS = ("etc/sysctl.d", "run/sysctl.d", "usr/local/lib/sysctl.d", "usr/lib/sysctl.d")


def parse_sysctl_conf(text: str) -> dict[str, str]:
    """`key = value` lines of one sysctl.d file; later lines win; `-` prefix and `/` normalised."""
    found: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;" or "=" not in line:
            continue
        key, value = (part.strip() for part in line.split("=", 1))
        key = key.removeprefix("-").replace("/", ".")
        if "*" not in key:  # glob keys (net.ipv4.conf.*.x) never name ours
            found[key] = value
    return found


def resolve_desired(root: Path = Path("/"), desired: Iterable[Desired] = DESIRED) -> list[Desired]:
    """What systemd-sysctl would set for our keys, as configured under `root`.

    An admin who sets `kernel.panic = 10` in a later-named file, or masks ours with /dev/null, gets
    their value (or none) here, so the daemon's apply at start never fights their configuration.
    Keys that no file sets keep our value: the package ships the file, but pip users may not.
    """
    files: dict[str, Path] = {}
    for d in reversed(SYSCTL_DIRS):  # earlier directories replace later ones
        try:
            files.update({p.name: p for p in (root / d).iterdir() if p.name.endswith(".conf")})
        except OSError:
            continue
    values: dict[str, str] = {}
    ordered = [files[name] for name in sorted(files)] + [root / "etc/sysctl.conf"]
    seen: set[Path] = set()
    for path in ordered:
        try:
            real = path.resolve()
            if real in seen or real == Path("/dev/null"):
                continue  # Debian links 99-sysctl.conf to /etc/sysctl.conf: read it once
            seen.add(real)
            values.update(parse_sysctl_conf(path.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    resolved = []
    for want in desired:
        if want.key in values:
            resolved.append(Desired(want.key, values[want.key], want.why, want.optional))
        elif CONF_NAME in files:  # our file masked (/dev/null) or edited without the key: skip
            continue
        else:
            resolved.append(want)
    return resolved
