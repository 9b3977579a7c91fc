"""`--redact`: replace what identifies a machine or a person with stable placeholders.

Applied to the rendered report, so nothing that reaches the output escapes it: text and
Markdown as text, JSON value by value (`redact_output`). Two passes, as `sos clean` does: the
first learns names from the whole input (host names announced by the log itself, their
domains, machine ids), the second masks every class in `CLASSES` and every learnt name
wherever it occurs. The same value always gets the same placeholder within one report
(`<host-1>`, `<ip-2>`, `<host-1>.<domain-1>`), so a reader can still follow "the same address
twice". Boot ids are kept: they identify a boot, not a machine, and tickets need them. Kernel
facts an operator needs stay: PCI addresses, driver and unit names, kernel and BIOS versions,
tags, times.

Every pattern is linear in its input: each starts only where a token starts (a look-behind
refuses the middle of a run), and no quantified group can match the same text two ways.
`bench/redact.py` measures each on adversarial 64 KiB lines.
"""

from __future__ import annotations

import html
import ipaddress
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from kmsgd.text.escape import json_text
from kmsgd.types import Format


@dataclass(frozen=True, slots=True)
class Identifier:
    """One class of identifier: `name` as docs/security.md lists it, the placeholder kind,
    and the pattern whose group `v` (the whole match when absent) is masked."""

    name: str
    kind: str  # the placeholder: <kind-N>
    pattern: re.Pattern[str]
    example: str  # a line holding one, used by the tests and the benchmark
    secret: str  # the part of `example` that must not survive


_OCTET = r"(?:25[0-5]|2[0-4]\d|1?\d?\d)"
_IPV4 = rf"(?<![\w.]){_OCTET}(?:\.{_OCTET}){{3}}(?!\w|\.\d)"
# an IPv6 candidate: a run of hex digits, colons and dots with two colons in it; the callback
# asks `ipaddress` whether it is one (times and PCI addresses have the same alphabet)
_IPV6 = r"(?<![\w:.%])(?=[0-9A-Fa-f.]*:[0-9A-Fa-f.]*:)[0-9A-Fa-f:.]{2,}(?:%[\w-]{1,32})?"
_SECRET_WORDS = {"password", "passwd", "passphrase", "pass", "pwd", "token", "secret", "key"}
_SECRET_WORDS |= {"credentials", "credential", "auth", "psk", "apikey"}
_UNIT_SUFFIXES = {"service", "socket", "target", "mount", "timer", "slice", "scope", "device"}
_UNIT_SUFFIXES |= {"path", "swap", "automount"}
_TEMPLATES = {"getty", "serial-getty", "container-getty", "autovt", "modprobe", "user"}
# names ending in these are public projects a log cites (bug trackers, firmware sites)
_PUBLIC = {"kernel.org", "nvidia.com", "amd.com", "intel.com", "freedesktop.org", "github.com"}
_PUBLIC |= {"ubuntu.com", "debian.org", "redhat.com", "fedoraproject.org", "systemd.io"}
_PUBLIC |= {"k8s.io", "golang.org", "ntp.org", "qemu-project.org", "qemu.org", "centos.org"}
_PUBLIC |= {"archlinux.org", "opensuse.org", "suse.com", "canonical.com", "microsoft.com"}
_TLDS = "com|net|org|edu|gov|mil|int|info|biz|io|ai|cloud|dev|app|uk|de|fr|nl|eu|ch|jp|cn|ru"
_TLDS += "|au|ca|se|no|fi|dk|pl|cz|at|be|es|local|lan|internal|intranet|corp|home|localdomain"
_NAME = r"[A-Za-z0-9](?:[\w-]{0,62})"
_FQDN = re.compile(rf"(?<![\w.@/-])(?:{_NAME}\.)+(?:{_TLDS})(?![\w-]|\.\w)", re.IGNORECASE)
_SERIAL_LABEL = (
    r"(?:(?:board|product|chassis|system|gpu|module|drive|disk)[ _-]?)?serial"
    r"(?:[ _-]?(?:number|no|num))?|S/N|SN|service[ _-]?tag|asset[ _-]?tag|ID_SERIAL(?:_SHORT)?"
    r"|ID_SCSI_SERIAL"
)


def _c(name: str, kind: str, rx: str, example: str, secret: str, flags: int = 0) -> Identifier:
    return Identifier(name, kind, re.compile(rx, flags), example, secret)


# The contract, in the order the classes are masked (docs/security.md holds the same table).
CLASSES: tuple[Identifier, ...] = (
    _c(
        "SSH key blob and its comment",
        "ssh-key",
        r"\b(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d{3}|sk-ssh-ed25519@openssh\.com)"
        r"\s(?P<v>AAAA[0-9A-Za-z+/]{8,}={0,3})(?:\s(?P<c>[^\s\"'<>]{1,255}))?",
        "authorized key ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0"
        " alice@laptop",
        "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0",
    ),
    _c(
        "SSH key fingerprint",
        "fingerprint",
        r"(?<![\w+/])(?P<v>SHA256:[0-9A-Za-z+/]{43}=?|MD5:(?:[0-9a-f]{2}:){15}[0-9a-f]{2})",
        "Accepted publickey for root from 192.0.2.7 port 52114 ssh2: ED25519 "
        "SHA256:k3mH2mBLf3dnM9wS+ob8kqC1lNdz7M3pqk2QjgNcGfM",
        "SHA256:k3mH2mBLf3dnM9wS+ob8kqC1lNdz7M3pqk2QjgNcGfM",
    ),
    _c(
        "command-line secret (password=, passwd=, token=, secret=, key=, rd.iscsi.password=)",
        "secret",
        r"(?<![\w.-])(?P<k>[\w.-]{1,64})=(?P<v>[^\s,;&\"'<>]+)",
        "Kernel command line: root=/dev/sda1 rd.iscsi.password=hunter2 ro",
        "hunter2",
    ),
    _c(
        "iSCSI name (IQN, EUI, NAA)",
        "iqn",
        r"(?<![\w.-])(?P<v>iqn\.\d{4}-\d{2}\.[\w.-]+(?::[^\s,;\"'<>]+)?|eui\.[0-9A-Fa-f]{16}"
        r"|naa\.[0-9A-Fa-f]{16,32})",
        "iscsi: connection1:0 to iqn.2004-03.net.example.lab:storage.disk1 is up",
        "iqn.2004-03.net.example.lab:storage.disk1",
    ),
    _c(
        "e-mail address",
        "email",
        r"(?<![\w.+-])(?P<u>[\w.+-]{1,64})@(?P<d>[\w-]{1,63}(?:\.[\w-]{1,63})*)(?![\w-])",
        "postfix: to=<alice.smith@example.org>, relay=none",
        "alice.smith",
    ),
    _c(
        "machine id (in journal paths too)",
        "machine-id",
        r"(?:/journal/|\b_?MACHINE_ID=|\bmachine[ _-]id[\"':=\s]{1,4})(?P<v>[0-9a-fA-F]{32})\b",
        "journal: file /var/log/journal/0f1e2d3c4b5a69788796a5b4c3d2e1f0/system.journal corrupted",
        "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
        re.IGNORECASE,
    ),
    _c(
        "UUID (file systems, GPUs, DMI system)",
        "uuid",
        r"\b(?P<v>[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\b",
        "Command line: root=UUID=3f1c2a9e-5b7d-4e21-9c8a-0d6e2f4b1a73 ro",
        "3f1c2a9e-5b7d-4e21-9c8a-0d6e2f4b1a73",
    ),
    _c(
        "serial number (Serial:, ServiceTag=, product_serial, ID_SERIAL=, GPU board, NVMe)",
        "serial",
        # "Serial: 8250/16550 driver" is the kernel's UART driver announcing itself
        rf"(?<![\w-])(?:{_SERIAL_LABEL})\s{{0,40}}[:=]\s{{0,40}}\"?(?!8250/)(?P<v>[\w./-]{{4,64}})"
        r"|^/dev/nvme\d+n\d+\s+(?P<n>[\w.-]{4,64})",
        "nvidia-smi: Serial Number                         : 1324021045870",
        "1324021045870",
        re.IGNORECASE | re.MULTILINE,
    ),
    _c(
        "MAC address (Ethernet, 20-byte IPoIB)",
        "mac",
        r"(?<![\w:-])(?P<v>(?:[0-9a-fA-F]{2}[:-]){5}(?:(?:[0-9a-fA-F]{2}[:-]){14})?"
        r"[0-9a-fA-F]{2})(?![\w:-])",
        "r8169 0000:0b:00.0 enp11s0: renamed from eth0, MAC a4:bb:6d:12:9f:e0",
        "a4:bb:6d:12:9f:e0",
    ),
    _c(
        "InfiniBand GUID",
        "guid",
        r"(?<![\w:])(?P<v>(?:[0-9a-fA-F]{4}:){3}[0-9a-fA-F]{4})(?![\w:])"
        r"|\bguid\b[\s:=]{0,4}(?P<g>(?:0x)?[0-9a-fA-F]{16})\b",
        "mlx5_core 0000:3b:00.0: Port GUID: 0x0c42a103007d5cb2",
        "0c42a103007d5cb2",
        re.IGNORECASE,
    ),
    _c(
        "IPv6 address (::ffff:a.b.c.d included)",
        "ip",
        _IPV6,
        "sshd: Connection from ::ffff:10.20.30.41 port 22",
        "10.20.30.41",
    ),
    _c(
        "IPv4 address",
        "ip",
        _IPV4,
        "sshd: Accepted publickey for bob from 10.20.30.42 port 52114",
        "10.20.30.42",
    ),
    _c(
        "domain name and FQDN (learnt, and any name ending in a public or site TLD)",
        "domain",
        _FQDN.pattern,
        "NFS: server nfs01.corp.example.com not responding, still trying",
        "example.com",
        re.IGNORECASE,
    ),
    _c(
        "host name in a systemd-journal-remote file name (remote-HOST.journal)",
        "remote",
        r"\bremote-(?P<v>[\w.-]{1,253}?)\.journal\b",
        "journal: /var/log/journal/remote/remote-box17.lab.example.net.journal: corrupted",
        "box17",
    ),
    _c(
        "user name in a home path",
        "user",
        r"(?P<p>/home/|/Users/|/var/home/|/run/user/|/u/)(?P<v>[^/\s'\"<>]{1,64})",
        "python3[4187]: segfault in /home/alice/venv/lib/libggml.so",
        "alice",
    ),
    _c(
        "user name in a log field (user=, uid=N(name), for user, sudo)",
        "user",
        r"(?:\b(?:user|USER|LOGNAME|SUDO_USER|ruser)=|\buid=\d{1,10}\(|\bfor (?:invalid )?user )"
        r"(?P<v>[A-Za-z_][\w.-]{0,63})(?=\(uid=|[\s;),]|$)"
        # sshd's "Accepted publickey for bob from": only "from" (or pam's "(uid=") after the
        # word tells a user from prose ("Task dump for CPU 0", "for unknown reason")
        r"|\bfor (?P<f>[A-Za-z_][\w.-]{0,63})(?=\s+from\s|\(uid=)"
        r"|(?<![\w.-])(?P<s>[A-Za-z_][\w.-]{0,63})(?= : TTY=)",
        "sshd: Accepted publickey for bobby from 10.20.30.41 port 52114",
        "bobby",
        re.MULTILINE,
    ),
)
_BY_KIND = {c.name: c for c in CLASSES}


@dataclass(frozen=True, slots=True)
class Learnt:
    """A way the input names its own machine: the name is learnt from every input line and
    then masked wherever it occurs, so dmesg-only input (no host column) is covered too."""

    name: str
    example: str  # a line announcing the name `secret`
    secret: str


# How the input announces its host name (docs/security.md holds the same table).
LEARNT: tuple[Learnt, ...] = (
    Learnt(
        "systemd: Hostname set to NAME", "systemd[1]: Hostname set to <gpu-box-07>.", "gpu-box-07"
    ),
    Learnt(
        "systemd-hostnamed: Changed host name to NAME",
        "systemd-hostnamed[812]: Changed host name to 'gpu-box-08'",
        "gpu-box-08",
    ),
    Learnt(
        "hostname= (a command line, a config)", "setup: hostname=gpu-box-09 applied", "gpu-box-09"
    ),
    Learnt("nodename", "RPC: nodename gpu-box-10 registered", "gpu-box-10"),
    Learnt("Hostname: (hostnamectl, DMI tables)", "Static hostname: gpu-box-11", "gpu-box-11"),
    Learnt("the journal's _HOSTNAME field", "_HOSTNAME=gpu-box-12 _TRANSPORT=kernel", "gpu-box-12"),
    Learnt(
        "ip= autoconfig: its host name field",
        "Kernel command line: ip=10.9.8.7::10.9.8.1:255.255.255.0:gpu-box-13:eth0:off",
        "gpu-box-13",
    ),
    Learnt("uname -a: Linux NAME RELEASE", "Linux gpu-box-14 6.8.0-49-generic #49", "gpu-box-14"),
    Learnt("a key comment or build host: user@NAME", "built by buildd@gpu-box-15", "gpu-box-15"),
    Learnt(
        "the syslog/journal host column",
        "Nov 14 13:44:01 gpu-box-16 kernel: eth0: link up",
        "gpu-box-16",
    ),
)
_LEARN = re.compile(
    r"(?:Hostname set to|Set hostname to) <(?P<a>[^>\s]{1,253})>"
    r"|Changed host name to '(?P<b>[^'\s]{1,253})'"
    r"|(?<![\w.-])(?:_?hostname|static hostname|transient hostname)\"?\s{0,8}[:=]\s{0,8}"
    r"\"?(?P<c>[A-Za-z0-9][\w.-]{0,252})"
    r"|(?<![\w.-])nodename\"?(?:\s{0,8}[:=]\s{0,8}\"?|\s{1,8})(?P<g>[A-Za-z0-9][\w.-]{0,252})"
    r"|(?<![\w.-])ip=(?P<d>[^\s]{1,512})"
    r"|\bLinux (?!version\b)(?P<e>[A-Za-z0-9][\w.-]{0,252}) \d+\.\d+\S* #"
    r"|\bremote-(?P<f>[\w.-]{1,253})\.journal",
    re.IGNORECASE,
)
_NOT_HOSTS = {"", "localhost", "localhost.localdomain", "(none)", "kernel", "-", "none"}
_NOT_HOSTS |= {"unknown", "localdomain", "true", "false", "yes", "no", "hostname", "nodename"}
# the same on every machine: naming them identifies nobody
_SAME_EVERYWHERE = {("user", "root"), ("host", "localhost"), ("host", "localhost.localdomain")}
_SITE_TLDS = {"local", "lan", "internal", "intranet", "corp", "home", "localdomain"}
_ESCAPED = re.compile(r"(\\x[0-9a-fA-F]{2})")  # the sanitizer's and the kernel's escapes


def hostnames_in(text: str) -> list[str]:
    """Host names a line announces about its machine (see LEARNT), FQDNs whole."""
    out: list[str] = []
    for m in _LEARN.finditer(text):
        name = next((g for g in m.groups() if g), "")
        if m.group("d"):  # ip=<client>:<server>:<gw>:<netmask>:<hostname>:<device>:...
            fields = re.sub(r"\[[^\]]{0,64}\]", "x", m.group("d")).split(":")
            name = fields[4] if len(fields) > 4 else ""
        name = name.rstrip(".").strip("\"'")
        if name.lower() not in _NOT_HOSTS and not name.isdigit() and len(name) > 1:
            out.append(name)
    return out


class Redactor:
    """Stable placeholders per value. `hosts` are names known from outside the text (the log's
    host column); `keep` are ids that stay (boot ids)."""

    def __init__(self, hosts: Iterable[str] = (), keep: Iterable[str] = ()) -> None:
        self._map: dict[tuple[str, str], str] = {}
        self._count: dict[str, int] = {}
        self._brackets = ("<", ">")
        self._keep = {k.lower().replace("-", "") for k in keep if k}
        self._hosts: set[str] = set()
        self._domains: set[str] = set()
        self._machine_ids: set[str] = set()
        self._names: re.Pattern[str] | None = None
        self.learn_names(hosts)

    # -- pass 1: learning ------------------------------------------------------------------

    def learn_names(self, names: Iterable[str], *, hosts: bool = True) -> None:
        """Host names, short or fully qualified: the short name (when `hosts`: a name the
        machine calls itself) and the domain are masked everywhere from now on."""
        for raw in names:
            name = raw.strip().rstrip(".").lower()
            # a DNS name is at most 253 characters (RFC 1035); a longer "name" is noise, and
            # as a literal in the masking pattern it would cost its length at every label
            if name in _NOT_HOSTS or not name or len(name) > 253 or _public(name):
                continue
            if name.split(".")[0].isdigit() or ":" in name:  # an address: the ip class's
                continue
            host, _, domain = name.partition(".")
            if hosts and host:
                self._hosts.add(host)
            # a domain of one label ("lan", "com") would mask that word everywhere: the
            # whole two-label name stands for the domain instead
            if domain:
                self._domains.add(domain if "." in domain else name)
        self._names = None

    def learn(self, text: str) -> None:
        """Everything the text says about its machine: announced names, FQDNs, key comments'
        hosts, machine ids."""
        self.learn_names(hostnames_in(text))
        self.learn_names((m.group(0) for m in _FQDN.finditer(text)), hosts=False)
        for m in _BY_KIND["e-mail address"].pattern.finditer(text):
            if "." not in m.group("d") and not _template(m.group("u"), m.group("d")):
                self.learn_names([m.group("d")])
        for m in _BY_KIND["machine id (in journal paths too)"].pattern.finditer(text):
            if m.group("v").lower() not in self._keep:
                self._machine_ids.add(m.group("v").lower())
        self._names = None

    # -- pass 2: masking -------------------------------------------------------------------

    def redact(self, text: str) -> str:
        """The text with every identifier replaced (after learning what it says of itself).
        An escape the output sanitizer wrote (`\\x0a`) separates tokens as the character did."""
        self.learn(text)
        parts = _ESCAPED.split(text)
        return "".join(p if i % 2 or not p else self._mask(p) for i, p in enumerate(parts))

    def output(self, text: str, fmt: Format) -> str:
        """A rendered report (`fmt`: text, md, html or json) redacted. In HTML a placeholder
        is written `&lt;host-1&gt;`, so that it shows as text and is no tag."""
        if fmt == Format.JSON:
            return self.redact_json(text)
        if fmt == Format.MD:
            return _md_placeholders(self.redact(text))
        if fmt != Format.HTML:
            return self.redact(text)
        self.learn(html.unescape(text))  # "Hostname set to &lt;name&gt;" names a host too
        self._brackets = ("&lt;", "&gt;")
        try:
            return self.redact(text)
        finally:
            self._brackets = ("<", ">")

    def redact_json(self, text: str) -> str:
        """JSON text (as the renderers write it: indent 2, UTF-8) with every string redacted."""
        doc = json.loads(text)
        self._learn_json(doc)
        return json_text(json.dumps(self._json(doc), indent=2, ensure_ascii=False)) + "\n"

    def _learn_json(self, value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if isinstance(v, str) and k.lower().lstrip("_") in {"hostname", "host"}:
                    self.learn_names([v])
                self._learn_json(v)
        elif isinstance(value, list):
            for v in value:
                self._learn_json(v)
        elif isinstance(value, str):
            self.learn(value)

    def _json(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {self._mask(k): self._json(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._json(v) for v in value]
        return self._mask(value) if isinstance(value, str) else value

    def _mask(self, text: str) -> str:
        for c in CLASSES:
            if c.kind == "domain":
                text = self._mask_names(text)
            text = c.pattern.sub(self._sub_for(c), text)
        return text

    def _sub_for(self, c: Identifier) -> Callable[[re.Match[str]], str]:
        special = {
            "secret": self._secret,
            "email": self._email,
            "ip": self._ip,
            "uuid": self._uuid,
            "machine-id": self._uuid,
            "ssh-key": self._ssh,
            "domain": lambda m: self._fqdn(m.group(0)),
            "remote": self._remote,
        }
        return special.get(c.kind) or (lambda m: self._groups(c.kind, m))

    def _groups(self, kind: str, m: re.Match[str]) -> str:
        """The match with each matched named group (a value) replaced by its placeholder."""
        text, start = m.group(0), m.start()
        spans = sorted(
            m.span(g) for g, v in m.groupdict().items() if v is not None and g not in {"k", "p"}
        )
        if not spans:
            return self._placeholder(kind, text)
        out, at = [], 0
        for a, b in spans:
            out += [text[at : a - start], self._placeholder(kind, text[a - start : b - start])]
            at = b - start
        return "".join(out) + text[at:]

    def _secret(self, m: re.Match[str]) -> str:
        key = re.split(r"[._-]", m.group("k"))[-1].lower()
        if key not in _SECRET_WORDS:
            return m.group(0)
        return f"{m.group('k')}={self._placeholder('secret', m.group('v'))}"

    def _email(self, m: re.Match[str]) -> str:
        user, domain = m.group("u"), m.group("d")
        if _template(user, domain) or domain.rsplit(".", 1)[-1].lower() in _UNIT_SUFFIXES:
            return m.group(0)
        if "." in domain:
            return self._placeholder("email", m.group(0))
        return f"{self._placeholder('user', user)}@{self._placeholder('host', domain)}"

    def _ip(self, m: re.Match[str]) -> str:
        value = m.group(0)
        try:
            ipaddress.ip_address(value.rstrip("."))
        except ValueError:
            return value
        if value.strip(":") == "":  # "::" alone is C++ or prose, not the unspecified address
            return value
        addr = ipaddress.ip_address(value.rstrip(".").split("%")[0])
        if addr.is_unspecified or addr.is_loopback or addr.is_multicast:
            return value  # 0.0.0.0, 127.0.0.1, 224.0.0.1: the same on every machine
        return self._placeholder("ip", value.rstrip(".")) + ("." if value.endswith(".") else "")

    def _uuid(self, m: re.Match[str]) -> str:
        value = m.group("v")
        if value.lower().replace("-", "") in self._keep:
            return m.group(0)
        kind = "uuid" if "-" in value else "machine-id"
        return m.group(0)[: m.start("v") - m.start()] + self._placeholder(kind, value)

    def _ssh(self, m: re.Match[str]) -> str:
        text = m.group(0)[: m.start("v") - m.start()] + self._placeholder("ssh-key", m.group("v"))
        if m.group("c") is not None:
            text += " " + self._placeholder("key-comment", m.group("c"))
        return text

    def _remote(self, m: re.Match[str]) -> str:
        name = m.group("v")
        shown = self._fqdn(name) if "." in name else self._placeholder("host", name)
        return f"remote-{shown}.journal"

    def _fqdn(self, name: str) -> str:
        low = name.lower()
        if _public(low):
            return name
        for d in sorted(self._domains, key=len, reverse=True):
            if low == d:
                host, _, rest = d.partition(".")
                if "." not in rest and (host in self._hosts or rest in _SITE_TLDS):  # gpu7.lan
                    return f"{self._placeholder('host', host)}.{self._placeholder('domain', rest)}"
                return self._placeholder("domain", d)
            if low.endswith("." + d):
                host = low[: -len(d) - 1]
                return f"{self._placeholder('host', host)}.{self._placeholder('domain', d)}"
        host, _, domain = low.partition(".")
        return f"{self._placeholder('host', host)}.{self._placeholder('domain', domain)}"

    def _mask_names(self, text: str) -> str:
        """Learnt domains (with any host in front), machine ids, then learnt short names."""
        if self._names is None:
            self._names = self._compile()
        if self._names is None:
            return text

        def sub(m: re.Match[str]) -> str:
            got = m.group(0)
            if m.groupdict().get("mid"):
                return self._placeholder("machine-id", got)
            if m.groupdict().get("dom"):
                return self._fqdn(got)
            return self._placeholder("host", got)

        return self._names.sub(sub, text)

    def _compile(self) -> re.Pattern[str] | None:
        alts = []
        if self._domains:
            doms = "|".join(re.escape(d) for d in sorted(self._domains, key=len, reverse=True))
            alts.append(rf"(?P<dom>(?<![\w.-])(?:[\w-]{{1,63}}\.)*(?:{doms}))(?![\w-]|\.\w)")
        if self._machine_ids:
            ids = "|".join(sorted(self._machine_ids))
            alts.append(rf"(?P<mid>(?<![0-9A-Fa-f])(?:{ids})(?![0-9A-Fa-f]))")
        if self._hosts:
            names = "|".join(re.escape(h) for h in sorted(self._hosts, key=len, reverse=True))
            alts.append(rf"(?<![\w-])(?:{names})(?![\w-])")
        return re.compile("|".join(alts), re.IGNORECASE) if alts else None

    def _placeholder(self, kind: str, value: str) -> str:
        if (kind, value.lower()) in _SAME_EVERYWHERE:
            return value
        key = (kind, value.lower())
        got = self._map.get(key)
        if got is None:
            self._count[kind] = self._count.get(kind, 0) + 1
            got = self._map[key] = f"{kind}-{self._count[kind]}"
        return f"{self._brackets[0]}{got}{self._brackets[1]}"


_PLACEHOLDER = re.compile(r"<([a-z]+(?:-[a-z]+)*-\d+)>")
_CODE_MARK = re.compile(r"(?<!\\)`")


def _md_placeholders(text: str) -> str:
    """Placeholders in Markdown prose as `\\<host-1\\>`: `<host-1>` is an HTML tag to
    CommonMark, and a ticket system would hide it. In code (fences, spans) they stay."""
    out, fence = [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
        elif not fence and "<" in line:
            parts = _CODE_MARK.split(line)
            parts[::2] = [_PLACEHOLDER.sub(r"\\<\1\\>", p) for p in parts[::2]]
            line = "`".join(parts)
        out.append(line)
    return "\n".join(out)


def _public(name: str) -> bool:
    return any(name == p or name.endswith("." + p) for p in _PUBLIC)


def _template(user: str, host: str) -> bool:
    """`getty@tty1`, `user@1000`: a systemd unit instance, not a person at a machine."""
    return user in _TEMPLATES or user.startswith("systemd-") or host.isdigit()


def redact_output(
    text: str, fmt: Format, *, hosts: Iterable[str] = (), keep: Iterable[str] = ()
) -> str:
    """A rendered report (`fmt`: text, md, html or json) redacted: the one entry point every
    renderer's caller uses. `hosts`: names known from the input; `keep`: boot ids."""
    return Redactor(hosts, keep=keep).output(text, fmt)
