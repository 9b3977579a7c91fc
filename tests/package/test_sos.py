"""contrib/sos/kmsgd.py against a stand-in for sos's Plugin API, both of its option styles
(sos 4.0 in Debian 12, PluginOpt since 4.3). The real sos runs it in test_deb.py's chroots."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

import pytest

PLUGIN = Path(__file__).resolve().parent.parent.parent / "contrib" / "sos" / "kmsgd.py"


class FakePlugin:
    """What the plugin calls, recorded."""

    def __init__(self, sysroot: Path, options: dict[str, Any]) -> None:
        self.sysroot = sysroot
        self.options = options
        self.cmds: list[str] = []
        self.copies: list[tuple[str, Any]] = []
        self.services: list[str] = []
        self.units: list[str] = []

    def join_sysroot(self, path: str) -> str:
        return str(self.sysroot / path.lstrip("/"))

    def add_cmd_output(self, cmd: str, suggest_filename: str | None = None) -> None:
        self.cmds.append(cmd)

    def add_copy_spec(self, spec: str | list[str], sizelimit: Any = None) -> None:
        for s in [spec] if isinstance(spec, str) else spec:
            self.copies.append((s, sizelimit))

    def add_service_status(self, services: list[str]) -> None:
        self.services += services

    def add_journal(self, units: list[str]) -> None:
        self.units += units

    def get_option(self, name: str) -> Any:
        return self.options.get(name, False)


class PluginOpt:
    def __init__(self, name: str, default: Any = None, desc: str = "") -> None:
        self.name, self.default, self.desc = name, default, desc


def load(monkeypatch: pytest.MonkeyPatch, *, plugin_opt: bool) -> types.ModuleType:
    plugins = types.ModuleType("sos.report.plugins")
    plugins.Plugin = FakePlugin  # type: ignore[attr-defined]
    for tag in ("IndependentPlugin", "DebianPlugin", "UbuntuPlugin"):
        setattr(plugins, tag, type(tag, (), {}))
    if plugin_opt:
        plugins.PluginOpt = PluginOpt  # type: ignore[attr-defined]
    for name in ("sos", "sos.report"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "sos.report.plugins", plugins)
    spec = importlib.util.spec_from_file_location("sos_kmsgd_plugin", PLUGIN)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(module: types.ModuleType, sysroot: Path, **options: Any) -> FakePlugin:
    plugin = module.Kmsgd(sysroot, options)
    plugin.setup()
    return plugin  # type: ignore[no-any-return]


@pytest.mark.parametrize("plugin_opt", [False, True], ids=["sos-4.0", "sos-4.3+"])
def test_collects_reports_commands_and_config_not_the_ring(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, plugin_opt: bool
) -> None:
    module = load(monkeypatch, plugin_opt=plugin_opt)
    assert module.Kmsgd.plugin_name == "kmsgd"
    (opt,) = module.Kmsgd.option_list
    assert (opt.name if plugin_opt else opt[0]) == "ring"
    assert (opt.default if plugin_opt else opt[3]) is False
    p = run(module, tmp_path)
    for cmd in ("kmsgd last-boot --format md", "kmsgd boots", "kmsgd check"):
        assert cmd in p.cmds
    paths = [c for c, _ in p.copies]
    assert "/etc/kmsgd/" in paths and "/var/lib/kmsgd/reports" in paths
    assert not [c for c in paths if c.endswith("/ring")]
    assert p.services == ["kmsgd", "kmsgd-report"] == p.units


def test_the_ring_when_asked_whole_and_where_the_config_moved_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    module = load(monkeypatch, plugin_opt=True)
    conf = tmp_path / "etc/kmsgd/kmsgd.toml"
    conf.parent.mkdir(parents=True)
    conf.write_text('[kmsgd]\nring = "/srv/kmsgd/ring"\nstate_dir = "/srv/kmsgd"\n')
    p = run(module, tmp_path, ring=True)
    assert ("/srv/kmsgd/ring", 0) in p.copies  # sizelimit 0: no limit, never a cut ring
    assert "/srv/kmsgd/reports" in [c for c, _ in p.copies]


def test_a_broken_config_file_still_collects(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    module = load(monkeypatch, plugin_opt=False)
    conf = tmp_path / "etc/kmsgd/kmsgd.toml"
    conf.parent.mkdir(parents=True)
    conf.write_text("[kmsgd\nring = \n")
    p = run(module, tmp_path, ring=True)
    assert ("/var/lib/kmsgd/ring", 0) in p.copies
    assert "/etc/kmsgd/" in [c for c, _ in p.copies]
