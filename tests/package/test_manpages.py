"""tools/gen-man: a man page per command with every option, and shell completion, from the
command-line definitions themselves (the package build runs it)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import click
import pytest

from kmsgd import cli, runcmd

REPO = Path(__file__).resolve().parent.parent.parent


def load_gen_man() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("gen_man", str(REPO / "tools" / "gen-man"))
    spec = importlib.util.spec_from_loader("gen_man", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_man"] = module  # dataclasses look their module up there
    loader.exec_module(module)
    return module


gen_man = load_gen_man()


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Page name (kmsgd-last-boot.1) -> its text with troff's escapes undone."""
    out = tmp_path_factory.mktemp("man")
    written = gen_man.write_man(out, "9.9", "2026-01-01")
    return {p.name: plain(p.read_text()) for p in written}


def plain(troff: str) -> str:
    return re.sub(r"\\f[BIRP]", "", troff).replace("\\-", "-").replace("\\e", "\\")


def commands() -> Iterator[tuple[str, click.Command]]:
    """('last-boot', command), ('sysctl', command), ... every click command, nested ones too."""
    ctx = click.Context(cli.main)

    def walk(group: click.Group, prefix: str) -> Iterator[tuple[str, click.Command]]:
        for name in group.list_commands(ctx):
            cmd = group.get_command(ctx, name)
            if cmd is None or cmd.hidden:
                continue
            if isinstance(cmd, click.Group):
                yield from walk(cmd, f"{prefix}{name}-")
            else:
                yield f"{prefix}{name}", cmd

    yield from walk(cli.main, "")


def page_of(pages: dict[str, str], name: str) -> str:
    found = [text for page, text in pages.items() if page.rsplit(".", 1)[0] == f"kmsgd-{name}"]
    assert len(found) == 1, f"no page for kmsgd {name}: {sorted(pages)}"
    return found[0]


def test_a_page_per_command(pages: dict[str, str]) -> None:
    names = {name for name, _ in commands()}
    assert "kmsgd.8" in pages
    assert {p.rsplit(".", 1)[0] for p in pages} == {"kmsgd"} | {f"kmsgd-{n}" for n in names}
    for name in names:
        assert f"kmsgd-{name}(" in pages["kmsgd.8"], f"kmsgd(8) does not list {name}"


def test_every_click_option_is_on_its_page(pages: dict[str, str]) -> None:
    for name, cmd in commands():
        if name == "run":  # argparse's, below
            continue
        text = page_of(pages, name)
        for param in cmd.params:
            if isinstance(param, click.Option) and not param.hidden:
                for opt in (*param.opts, *param.secondary_opts):
                    assert re.search(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", text), (
                        f"kmsgd {name} {opt} is missing from its man page"
                    )
                if param.help:
                    assert " ".join(param.help.split()) in " ".join(text.split())


def test_run_options_all_have_help_and_are_on_the_page(pages: dict[str, str]) -> None:
    text = page_of(pages, "run")
    for action in runcmd.parser()._actions:
        assert action.help, f"kmsgd run {action.option_strings} has no help text"
        for opt in action.option_strings:
            assert re.search(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", text), opt


def test_every_page_has_exit_status_files_and_examples(pages: dict[str, str]) -> None:
    for page, text in pages.items():
        for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "EXIT STATUS", "EXAMPLES", "SEE ALSO"):
            assert f".SH {section}" in text, f"{page}: no {section}"
        if page != "kmsgd-analyze.1":  # reads only the file it is given
            assert ".SH FILES" in text, f"{page}: no FILES"


def test_examples_use_only_real_options() -> None:
    known = dict(commands())
    for key, examples in gen_man.EXAMPLES.items():
        if key and key not in known:  # written ahead of a command another change adds
            continue
        for _, line in examples:
            for part in line.split("|"):
                words = part.split()
                if "kmsgd" not in " ".join(words[:1]):
                    continue
                name = words[1] if len(words) > 1 and not words[1].startswith("-") else ""
                assert name == key or key == "", f"example for {key!r} runs kmsgd {name}"
                opts = [w for w in words[2:] if w.startswith("--")]
                if name == "run":
                    valid = {o for a in runcmd.parser()._actions for o in a.option_strings}
                elif name:
                    cmd = known[name]
                    valid = {o for p in cmd.params for o in (*p.opts, *p.secondary_opts)}
                else:
                    valid = {"--version", "--help"}
                assert set(opts) <= valid, f"{line}: {set(opts) - valid}"
    assert set(known) - set(gen_man.EXAMPLES) == set(), "commands without examples"


def test_pages_render_without_warnings(tmp_path: Path) -> None:
    if shutil.which("man") is None:
        pytest.skip("man is not installed")
    for path in gen_man.write_man(tmp_path, "9.9", "2026-01-01"):
        # What lintian's manpage check runs.
        done = subprocess.run(
            ["man", "--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z", str(path)],
            capture_output=True,
            text=True,
            env={**os.environ, "LC_ALL": "C.UTF-8", "MANROFFSEQ": "", "MANWIDTH": "80"},
            check=False,
        )
        assert done.returncode == 0 and not done.stderr.strip(), f"{path.name}: {done.stderr}"


def test_completions(tmp_path: Path) -> None:
    written = {p.relative_to(tmp_path).as_posix(): p for p in gen_man.write_completions(tmp_path)}
    assert set(written) == {"bash/kmsgd", "zsh/_kmsgd", "fish/kmsgd.fish"}
    assert written["zsh/_kmsgd"].read_text().startswith("#compdef kmsgd")
    for path in written.values():
        assert "_KMSGD_COMPLETE=" in path.read_text()


def test_completion_answers_through_the_real_entry_point() -> None:
    # What the bash script runs at <TAB> after `kmsgd last-`.
    done = subprocess.run(
        [sys.executable, "-c", "import sys; sys.argv[0] = 'kmsgd'; "
         "from kmsgd.__main__ import main; main()"],
        env={**os.environ, "_KMSGD_COMPLETE": "bash_complete", "COMP_WORDS": "kmsgd last-",
             "COMP_CWORD": "1"},
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "plain,last-boot" in done.stdout.splitlines()
