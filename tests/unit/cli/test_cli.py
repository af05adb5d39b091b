"""The `webctx` command line (native_host/cli/): help for everything, one error catch, --json."""

from __future__ import annotations

import argparse
import json
import logging
import os
import stat
import tempfile
from pathlib import Path

import pytest

from native_host import paths
from native_host.cli import main as cli_main
from native_host.cli.main import COMMANDS, build_parser, main
from native_host.cli.render import render_tree, shorten
from native_host.demo import browsers
from native_host.demo.runner import browser_command
from native_host.install import programs
from native_host.install.locations import current_os
from native_host.protocol.answers import Element

COMMAND_NAMES = [
    "context",
    "locate",
    "read",
    "tools",
    "call",
    "activity",
    "providers",
    "mcp",
    "conformance",
    "install",
    "uninstall",
    "doctor",
    "extension-path",
    "pack",
    "demo",
]


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("no subcommands")


def test_the_commands_are_the_ones_documented() -> None:
    assert list(_subparsers(build_parser())) == COMMAND_NAMES
    assert len(COMMANDS) == len(COMMAND_NAMES)


def test_webctx_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for name in COMMAND_NAMES:
        assert name in out


@pytest.mark.parametrize("command", COMMAND_NAMES)
def test_every_command_has_help_that_explains_it(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: webctx {command}")
    parser = _subparsers(build_parser())[command]
    assert parser.description and len(parser.description.split()) >= 25, "a paragraph, not a label"
    for action in parser._actions:
        assert action.help, f"{command}: option {action.option_strings} has no help"


def test_demo_without_a_browser_exits_1_and_says_how_to_install_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(
        programs, "PROGRAMS",
        (programs.Program("chromium", current_os(), (str(tmp_path / "no" / "chromium"), "no-such-browser")),),
    )
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert main(["demo"]) == 1
    err = capsys.readouterr().err
    assert "apt-get install chromium" in err
    assert "Traceback" not in err
    assert not list(tmp_path.glob("webctx-demo-*"))


def test_an_error_prints_one_sentence_and_logs_the_traceback_to_the_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(programs, "PROGRAMS", ())
    assert main(["demo"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("webctx: No Chromium-family browser")
    log_text = (paths.log_dir() / cli_main.LOG_FILE_NAME).read_text()
    assert "Traceback" in log_text and "BrowserNotFound" in log_text


def test_context_with_no_provider_exits_1_with_a_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["context", "--pid", "999999"]) == 1
    assert "No provider runs as pid 999999" in capsys.readouterr().err


def test_providers_json_is_one_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["providers", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == {"folder": str(paths.providers_dir()), "providers": []}


def test_install_and_uninstall_with_a_user_data_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    udd = tmp_path / "udd"
    udd.mkdir()  # the browser made it on its first start
    assert main(["install", "--user-data-dir", str(udd), "--extension-id", "a" * 32, "--json"]) == 0
    written = json.loads(capsys.readouterr().out)["written"]
    assert written == [str(udd / "NativeMessagingHosts" / "webctx.native_host.json")]
    assert main(["uninstall", "--user-data-dir", str(udd)]) == 0
    assert "Removed" in capsys.readouterr().out
    assert not Path(written[0]).exists()


def test_the_tree_view_shows_roles_ids_states_and_short_text() -> None:
    root = Element.model_validate(
        {
            "id": "app",
            "role": "Application",
            "title": "Chromium",
            "children": [
                {
                    "id": "win-1",
                    "role": "Window",
                    "focused": True,
                    "children": [
                        {
                            "id": "tab-1",
                            "role": "Page",
                            "subrole": "tab",
                            "title": "Demo",
                            "url": "http://127.0.0.1/",
                            "focused": True,
                            "children": [
                                {
                                    "id": "sel-1",
                                    "role": "Text",
                                    "selected": True,
                                    "content": [{"type": "text", "text": "word " * 40}],
                                }
                            ],
                        },
                        {"id": "tab-2", "role": "Page", "subrole": "tab", "title": "Other", "visible": False},
                    ],
                }
            ],
        }
    )
    text = render_tree(root)
    assert text.splitlines() == [
        'Application app  "Chromium"',
        "└─ Window win-1  [focused]",
        '   ├─ Page/tab tab-1  "Demo"  <http://127.0.0.1/>  [focused]',
        f"   │  └─ Text sel-1  [selected]  “{shorten('word ' * 40)}”",
        '   └─ Page/tab tab-2  "Other"  [hidden]',
    ]
    assert shorten("word " * 40).endswith("…") and len(shorten("word " * 40)) <= 72


def test_the_tree_view_says_a_selection_had_hidden_text_left_out() -> None:
    text = Element.model_validate(
        {
            "id": "sel-1",
            "role": "Text",
            "selected": True,
            "content": [{"type": "text", "text": "Click anywhere."}],
            "attributes": {"hiddenOmitted": True},
        }
    )
    assert render_tree(text) == "Text sel-1  [selected]  “Click anywhere.”  hiddenOmitted=True"


def test_the_demo_prefers_the_first_installed_browser_in_the_table(tmp_path: Path) -> None:
    real = tmp_path / "real-chromium"
    real.write_text("#!/bin/sh\n")
    real.chmod(real.stat().st_mode | stat.S_IXUSR)
    (tmp_path / "bin").mkdir()
    on_path = tmp_path / "bin" / "google-chrome"
    on_path.write_text("#!/bin/sh\n")
    on_path.chmod(0o755)
    table = (str(tmp_path / "missing"), str(real), "google-chrome")
    machine = programs.Machine(os="linux", path=str(tmp_path / "bin"))
    row = programs.Program("chromium", "linux", table)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(programs, "PROGRAMS", (row,))
        assert browsers.find_browser(machine) == str(real)
        patch.setattr(programs, "PROGRAMS", (programs.Program("chromium", "linux", table[::2]),))
        assert browsers.find_browser(machine) == str(on_path)


def test_the_demo_browser_command_is_headless_with_the_devtools_pipe(tmp_path: Path) -> None:
    command = browser_command("/b/chromium", tmp_path / "udd", "http://127.0.0.1:1/")
    assert command[:2] == ["/b/chromium", "--headless=new"]
    assert ("--no-sandbox" in command) == (os.geteuid() == 0)
    assert f"--user-data-dir={tmp_path / 'udd'}" in command
    assert {"--remote-debugging-pipe", "--enable-unsafe-extension-debugging"} <= set(command)
    assert not [arg for arg in command if arg.startswith(("--load-extension", "--disable-extensions"))]
    assert command[-1] == "http://127.0.0.1:1/"


def test_on_windows_the_demo_browser_command_loads_the_extension_by_flag(tmp_path: Path) -> None:
    """Windows cannot hand the browser fds 3 and 4 (devtools.py): the demo falls back to the flag
    that Edge, Brave and Chromium honour (a fake answer: this runs on Linux)."""
    extension = tmp_path / "ext"
    url = "http://127.0.0.1:1/"
    command = browser_command("C:/b/msedge.exe", tmp_path / "udd", url, load_extension=extension)
    assert f"--load-extension={extension}" in command
    assert f"--disable-extensions-except={extension}" in command
    assert "--remote-debugging-pipe" not in command and command[-1] == "http://127.0.0.1:1/"


@pytest.mark.parametrize("command", ["context", "demo"])
@pytest.mark.parametrize("value", ["0", "-1", "soon"])
def test_a_time_limit_must_be_a_positive_number(
    command: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([command, "--timeout", value])
    assert exited.value.code == 2
    assert "--timeout" in capsys.readouterr().err


def test_the_cli_log_is_private_and_carries_no_mcp_message_bodies() -> None:
    """Regression (fresh-user report B2): cli.log was 0644 in a 0755 folder and held whole answers."""
    cli_main.setup_logging(0)
    logging.getLogger("mcp.client.streamable_http").debug("SSE message: %s", "the selected words")
    for handler in logging.getLogger().handlers:
        handler.flush()
    folder = paths.log_dir()
    log_file = folder / cli_main.LOG_FILE_NAME
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(log_file.stat().st_mode) == 0o600
    assert "the selected words" not in log_file.read_text()
