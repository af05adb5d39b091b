"""What a fresh-user tester found in the CLI, doctor, install and demo (one test or more per finding)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from native_host import __main__ as host_main
from native_host.cli import context, locate
from native_host.cli import main as cli_main
from native_host.cli.arguments import positive_ms, positive_seconds
from native_host.cli.main import main
from native_host.cli.render import MAX_TOOL_NAMES, describe
from native_host.conformance import runner
from native_host.demo.browsers import check_chromium_family
from native_host.errors import BrowserNotFound, ProviderRejected
from native_host.host import ProviderInfo
from native_host.install import doctor, installer
from native_host.install.manifests import MANIFEST_FILE
from native_host.protocol.answers import CurrentAnswer, Element
from tests.support.descriptors import make_descriptor

INSTANCE = "QcPH727K-9b1e-4c55-8d2e-3f0c1a2b3c4d"


def _manifest(tmp_path: Path, **changes: Any) -> Path:
    launcher = tmp_path / "launcher"
    launcher.write_text("#!/bin/sh\n")
    launcher.chmod(0o755)
    data: dict[str, Any] = {
        "name": "webctx.native_host", "description": "webctx", "path": str(launcher), "type": "stdio",
        "allowed_origins": ["chrome-extension://" + "a" * 32 + "/"],
    }
    data.update(changes)
    for key in [k for k, v in data.items() if v is None]:
        del data[key]
    path = tmp_path / MANIFEST_FILE
    path.write_text(json.dumps(data))
    return path


def _by_name(checks: list[doctor.Check], name: str) -> doctor.Check:
    return next(c for c in checks if c.name == name)


# 1. doctor checks the manifest's type and required keys ------------------------------------------

@pytest.mark.parametrize("kind", ["socket", "", None])
def test_doctor_names_a_manifest_type_that_is_not_stdio(tmp_path: Path, kind: str | None) -> None:
    checks, _ = doctor.check_manifest("chromium", _manifest(tmp_path, type=kind), kind="chromium",
                                      ext_id="a" * 32, others=[])
    keys = _by_name(checks, "manifest.keys")
    assert not keys.ok
    assert "stdio" in keys.message if kind is not None else "lacks type" in keys.message


@pytest.mark.parametrize("missing", ["description", "name", "path", "allowed_origins"])
def test_doctor_names_a_missing_required_key(tmp_path: Path, missing: str) -> None:
    checks, _ = doctor.check_manifest("chromium", _manifest(tmp_path, **{missing: None}), kind="chromium",
                                      ext_id="a" * 32, others=[])
    keys = _by_name(checks, "manifest.keys")
    assert not keys.ok and f"lacks {missing}" in keys.message


def test_doctor_passes_a_good_manifest_and_lists_the_keys_check(tmp_path: Path) -> None:
    checks, launcher = doctor.check_manifest("chromium", _manifest(tmp_path), kind="chromium",
                                             ext_id="a" * 32, others=[])
    assert all(c.ok for c in checks) and launcher is not None
    assert "manifest.keys" in [info.name for info in doctor.CHECKS]


# 2. the whole instance, and a clear --instance mismatch ------------------------------------------

def test_context_prints_the_whole_instance(monkeypatch: pytest.MonkeyPatch) -> None:
    answer = CurrentAnswer(protocol="0.2.0", instance=INSTANCE, root=Element(id="app-1", role="Application"))
    fake = SimpleNamespace(descriptor=make_descriptor(instance=INSTANCE), answer=answer, raw={})
    monkeypatch.setattr(context, "current_sync", lambda *a, **k: fake)
    text = context.run(argparse.Namespace(pid=None, legacy=False, timeout=1.0)).text
    assert f"instance {INSTANCE})" in text and "…" not in text.splitlines()[0]


def test_locate_says_why_an_id_from_another_or_cut_short_instance_is_gone() -> None:
    assert "cut short" in locate.instance_mismatch(INSTANCE[:8] + "…", INSTANCE)
    assert INSTANCE in locate.instance_mismatch(INSTANCE[:8] + "…", INSTANCE)
    restarted = locate.instance_mismatch("other-instance", INSTANCE)
    assert "restarted" in restarted and "webctx context" in restarted


# 3. one correct fix for an unsafe providers folder ------------------------------------------------

def test_doctor_says_remove_a_symlinked_providers_folder(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "providers"
    link.symlink_to(real)
    check = doctor.check_providers_dir(link)
    assert not check.ok and check.fix.startswith("rm ") and "chmod" not in check.message


def test_doctor_gives_chmod_once_for_a_0755_providers_folder(tmp_path: Path) -> None:
    folder = tmp_path / "providers"
    folder.mkdir()
    folder.chmod(0o755)
    check = doctor.check_providers_dir(folder)
    assert not check.ok and check.message.count("chmod 700") == 1 and "755" in check.message


# 4. Ctrl-C while the commands are imported ---------------------------------------------------------

def test_ctrl_c_during_the_imports_is_clean(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(*_names: object) -> list[Any]:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_main, "command_modules", interrupted)
    assert main(["demo"]) == 130
    assert capsys.readouterr().err == "webctx: interrupted.\n"


def test_importing_the_cli_entry_point_imports_no_heavy_library() -> None:
    code = "import sys, native_host.cli.main; print(sorted({'pydantic', 'mcp', 'psutil'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


# 5. conformance picks the provider `context` would ask -------------------------------------------

def test_conformance_picks_the_only_usable_descriptor_among_several(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("a.json", "b.json", "c.json", "d.json"):
        (tmp_path / name).write_text("{}")
    stale = ProviderRejected("gone", reason="process_gone")
    found = [
        ProviderInfo(tmp_path / "a.json", None, ProviderRejected("unreadable", reason="unreadable")),
        ProviderInfo(tmp_path / "b.json", make_descriptor(pid=1, instance=INSTANCE), stale),
        ProviderInfo(tmp_path / "c.json", make_descriptor(pid=2, instance=INSTANCE)),
        ProviderInfo(tmp_path / "d.json", make_descriptor(pid=3, instance=INSTANCE), stale),
    ]
    monkeypatch.setattr(runner, "discover", lambda folder: found)
    monkeypatch.setattr("native_host.host.discovery.front_app_pid", lambda: None)
    assert runner.find_descriptor(folder=tmp_path) == tmp_path / "c.json"


# 7. uninstall --dry-run lists exactly what uninstall removes -------------------------------------

def test_uninstall_dry_run_lists_exactly_what_the_real_run_removes(tmp_path: Path) -> None:
    home = tmp_path / "h"
    data = home / ".local" / "share" / "webctx"
    home.mkdir()
    options: dict[str, Any] = {"home": home, "launcher_dir": data, "os_name": "linux"}
    installer.install("chromium", ext_id="a" * 32, present=lambda _row: True, **options)
    (data / "firefox-extension" / "content").mkdir(parents=True)
    (data / "firefox-extension" / "content" / "x.js").write_text("")
    dry = installer.uninstall(dry_run=True, **options).removed
    assert (data / "webctx-native-host").exists()
    real = installer.uninstall(**options).removed
    assert dry == real
    assert str(data / "firefox-extension") in real and str(data / "install-record.json") in real
    assert not data.exists()


# 8. --user-data-dir must be an existing folder ---------------------------------------------------

def test_install_refuses_a_missing_user_data_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nonexistent" / "deep" / "dir"
    assert main(["install", "--user-data-dir", str(missing)]) == 1
    assert "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "nonexistent").exists()


def test_install_refuses_a_user_data_dir_that_is_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "passwd"
    file.write_text("")
    assert main(["install", "--user-data-dir", str(file)]) == 1
    assert "is not a folder" in capsys.readouterr().err


# 9. the demo refuses Firefox at once ---------------------------------------------------------------

def test_demo_refuses_a_firefox_family_browser_at_once(tmp_path: Path) -> None:
    firefox = tmp_path / "firefox-esr"
    firefox.symlink_to("/bin/true")
    with pytest.raises(BrowserNotFound, match="Chromium-family browsers only") as info:
        check_chromium_family(str(firefox))
    assert "extension-path --firefox" in info.value.message
    check_chromium_family("/usr/lib/chromium/chromium")  # no error


# 10. bounded output, strict numbers ------------------------------------------------------------------

@pytest.mark.parametrize("text", ["-5", "0", "inf", "-inf", "nan", "x"])
def test_time_limits_and_budgets_must_be_positive_finite_numbers(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        positive_seconds(text)
    with pytest.raises(argparse.ArgumentTypeError):
        positive_ms(text)
    assert positive_seconds("2.5") == 2.5


@pytest.mark.parametrize("option", ["--budget-ms", "--timeout"])
def test_conformance_rejects_a_negative_number_as_a_usage_error(option: str) -> None:
    with pytest.raises(SystemExit) as info:
        main(["conformance", option, "-5"])
    assert info.value.code == 2


def test_the_tree_lists_a_few_page_tools_then_how_many_more() -> None:
    tools = [f"p1_tool_{n}" for n in range(128)]
    line = describe(Element(id="doc-1", role="Document", attributes={"tools": tools}))
    assert f"+{128 - MAX_TOOL_NAMES} more" in line and "p1_tool_127" not in line


def test_locate_cuts_a_huge_id_when_it_echoes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from native_host.protocol.answers import LocationAnswer

    answer = LocationAnswer(state="gone", rects=[])
    monkeypatch.setattr(locate, "locate_sync", lambda *a, **k: (make_descriptor(instance=INSTANCE), answer))
    args = argparse.Namespace(id="x" * 100_000, pid=None, instance=None, timeout=1.0)
    assert len(locate.run(args).text) < 200


# 12. the native host run by hand -------------------------------------------------------------------

def test_the_native_host_run_by_hand_says_to_use_webctx() -> None:
    with open(os.devnull, "rb") as devnull:
        done = subprocess.run([sys.executable, "-m", "native_host", "--help"], stdin=devnull,
                              capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.strip() == host_main.NOT_FROM_BROWSER and "Traceback" not in done.stderr


def test_a_pipe_without_help_is_the_browser() -> None:
    read, write = os.pipe()
    try:
        assert host_main.started_by_browser(["chrome-extension://x/"], read)
        assert not host_main.started_by_browser(["--help"], read)
    finally:
        os.close(read)
        os.close(write)
    with open(os.devnull, "rb") as devnull:
        assert not host_main.started_by_browser([], devnull.fileno())
