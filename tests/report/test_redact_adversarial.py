"""Every redaction pattern on 64 KiB lines built to make a backtracking pattern quadratic.

A pattern that backtracks on `a.a.a.…` or `aaaa@` takes tens of seconds on one such line (an
e-mail pattern with `\\b` at its start did); a linear one takes milliseconds. What is checked
here is the output; how long each pattern takes is measured by `bench/redact_bench.py`, beside
`grep -c` over the same text, not asserted (docs/performance.md)."""

from __future__ import annotations

import pytest

from kmsgd.report.redact import _FQDN, CLASSES, Redactor, hostnames_in
from kmsgd.text.escape import escape

N = 64 * 1024


def _fill(unit: str, tail: str = "") -> str:
    return unit * ((N - len(tail)) // len(unit)) + tail


# lines where nothing identifies anyone: the redacted line is the line
UNCHANGED = {
    "a.a.a": _fill("a."),
    "aaaa@": _fill("a", "@"),
    "digits": _fill("1"),
    "1.1.1": _fill("1."),
    "::::": _fill(":"),
    "a:a:": _fill("a:"),
    "ab:ab:": _fill("ab:"),
    "a=a=": _fill("a="),
    "----": _fill("-"),
    "a-a-": _fill("a-"),
    "remote-": _fill("remote-"),
    "iqn.": _fill("iqn."),
    "/home/": _fill("/home/"),
    "SHA256:": _fill("SHA256:"),
    "ssh-rsa AAAA": _fill("ssh-rsa AAAA"),
    "0000:": _fill("0000:"),
    "\\x1b": _fill("\\x1b"),
    "hostname=": _fill("hostname="),
    "ip=": _fill("ip="),
}
# lines made of identifiers: what each becomes
CHANGED = {
    "a@a@": (_fill("a@"), lambda n: "<user-1>@<host-1>@" * (n // 4)),
    "x@y.y.y": ("x@" + _fill("y.")[:-2] + "y", lambda n: "<email-1>"),
}


@pytest.fixture(scope="module")
def redacted() -> dict[str, str]:
    lines = dict(UNCHANGED) | {k: v[0] for k, v in CHANGED.items()}
    return {name: Redactor().redact(line) for name, line in lines.items()}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(UNCHANGED))
def test_a_line_of_nothing_identifying_comes_out_as_it_went_in(
    redacted: dict[str, str], name: str
) -> None:
    assert redacted[name] == UNCHANGED[name]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CHANGED))
def test_a_line_of_identifiers_is_masked_whole(redacted: dict[str, str], name: str) -> None:
    line, expect = CHANGED[name]
    assert redacted[name] == expect(len(line))


# per class: the text that starts its match, repeated (an even number of times), and what
# the line becomes
TRIGGERS = {
    "ssh-key": ("ssh-ed25519 AAAA", lambda k: "ssh-ed25519 AAAA" * k),
    "fingerprint": ("SHA256:a", lambda k: "SHA256:a" * k),
    "secret": ("password=", lambda k: "password=<secret-1>"),
    "iqn": ("iqn.2004-03.", lambda k: "<iqn-1>"),
    "email": ("a.b@", lambda k: "<email-1>@" * (k // 2)),
    "machine-id": ("/journal/0", lambda k: "/journal/0" * k),
    "uuid": ("0000-", lambda k: "0000-" * k),
    "serial": ("Serial: ", lambda k: "Serial: <serial-1>: " * (k // 2)),
    "mac": ("a4:", lambda k: "a4:" * k),
    "guid": ("guid 0x", lambda k: "guid 0x" * k),
    "ip": ("::1:", lambda k: "::1:" * k),
    "domain": ("a.example.com.", lambda k: "<host-1>.<domain-1>."),
    "remote": ("remote-a.", lambda k: "remote-a." * k),
    "user": ("/home/a", lambda k: "/home/<user-1>" * k),
    "user-field": ("for user ", lambda k: "for user <user-1> user " * (k // 2)),
}


def _kind(c: object) -> str:
    kind: str = c.kind  # type: ignore[attr-defined]
    return "user-field" if kind == "user" and "field" in c.name else kind  # type: ignore[attr-defined]


def test_every_class_has_a_trigger() -> None:
    assert {_kind(c) for c in CLASSES} == set(TRIGGERS)


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(TRIGGERS))
def test_each_class_on_its_own_trigger_repeated_64_kib_long(kind: str) -> None:
    unit, expect = TRIGGERS[kind]
    k = N // len(unit) // 2 * 2
    assert Redactor().redact(unit * k) == expect(k)


@pytest.mark.parametrize("c", CLASSES, ids=_kind)
def test_each_pattern_alone_ends_on_its_trigger(c: object) -> None:
    unit = TRIGGERS[_kind(c)][0]
    found = list(c.pattern.finditer(_fill(unit)))  # type: ignore[attr-defined]
    assert all(m.end() <= N for m in found)


@pytest.mark.parametrize("name", ["a.a.a", "aaaa@", "::::", "remote-", "hostname=", "ip="])
def test_the_learning_patterns_find_nothing_in_noise(name: str) -> None:
    assert hostnames_in(UNCHANGED[name]) == []
    assert not list(_FQDN.finditer(UNCHANGED[name]))


def test_the_sanitizer_on_64_kib_of_controls() -> None:
    out = escape("\x1b" * N)
    assert out == "\\x1b" * N
