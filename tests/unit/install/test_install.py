"""`webctx install` / `uninstall` (native_host/install/, design.md §6): the id, the manifest, the launcher."""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from native_host import NATIVE_HOST_NAME, paths
from native_host.errors import InstallError
from native_host.install import installer, locations, manifests

EXPECTED_EXTENSION_ID = "kbmgfelnojabkebealaikmhmkcjnbgpl"


@pytest.fixture
def private_home(isolated_home: Path) -> Path:
    """The test's own HOME (tests/conftest.py points HOME and XDG_* into tmp_path)."""
    return isolated_home


def snapshot(root: Path) -> set[tuple[str, bool]]:
    """Every path under `root` (relative) and whether it is a folder."""
    return {(str(p.relative_to(root)), p.is_dir()) for p in root.rglob("*")}


def _manifest_key() -> str | None:
    try:
        data = json.loads((paths.extension_dir() / "manifest.json").read_text())
    except (FileNotFoundError, ValueError):
        return None
    key = data.get("key")
    return key if isinstance(key, str) else None


def test_the_extension_id_derived_from_the_key_is_the_pinned_one() -> None:
    key = _manifest_key()
    if key is None:
        pytest.skip("extension/manifest.json (with its `key`) does not exist yet")
    assert manifests.extension_id_from_key(key) == EXPECTED_EXTENSION_ID
    assert manifests.extension_id() == EXPECTED_EXTENSION_ID


def test_the_id_is_sha256_of_the_decoded_key_mapped_to_a_to_p() -> None:
    # 32 zero bytes: SHA-256 = 66687aadf862bd77…, so the id starts g g g i h k …
    import base64
    import hashlib

    key = base64.b64encode(bytes(32)).decode()
    digest = hashlib.sha256(bytes(32)).hexdigest()[:32]
    expected = "".join(chr(ord("a") + int(c, 16)) for c in digest)
    assert manifests.extension_id_from_key(key) == expected
    assert len(expected) == 32 and set(expected) <= set("abcdefghijklmnop")


def test_a_key_that_is_not_base64_is_an_install_error() -> None:
    with pytest.raises(InstallError, match="not valid base64"):
        manifests.extension_id_from_key("not base64 !!")


def test_a_missing_key_is_an_install_error_ending_with_the_fix(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text(json.dumps({"name": "x"}))
    with pytest.raises(InstallError) as info:
        manifests.extension_id(tmp_path)
    assert str(info.value).endswith("pass --extension-id.")


def test_install_into_a_user_data_dir_writes_the_host_manifest(tmp_path: Path) -> None:
    udd = tmp_path / "udd"
    udd.mkdir()  # the browser made it on its first start
    report = installer.install(user_data_dir=udd, ext_id=EXPECTED_EXTENSION_ID)
    manifest_path = udd / "NativeMessagingHosts" / f"{NATIVE_HOST_NAME}.json"
    assert report.written == [manifest_path]
    data = json.loads(manifest_path.read_text())
    assert data == {
        "name": "webctx.native_host",
        "description": "webctx: makes this browser a context provider for desktop AI hosts",
        "path": str(report.launcher),
        "type": "stdio",
        "allowed_origins": [f"chrome-extension://{EXPECTED_EXTENSION_ID}/"],
    }
    assert Path(data["path"]).is_absolute()
    assert report.launcher == paths.data_dir() / manifests.LAUNCHER_FILE


def test_the_launcher_is_executable_and_pins_this_interpreter(tmp_path: Path) -> None:
    (tmp_path / "udd").mkdir()
    report = installer.install(user_data_dir=tmp_path / "udd", ext_id=EXPECTED_EXTENSION_ID)
    launcher = report.launcher
    assert launcher is not None
    mode = stat.S_IMODE(launcher.stat().st_mode)
    assert mode == 0o755
    text = launcher.read_text()
    assert text.startswith("#!/bin/sh\n")
    assert f'exec {shlex.quote(os.path.abspath(sys.executable))} -m native_host "$@"' in text


def test_the_launcher_execs_the_pinned_interpreter_with_the_browser_s_arguments(tmp_path: Path) -> None:
    fake_python = tmp_path / "fake python"  # a space, to prove the quoting
    fake_python.write_text('#!/bin/sh\nprintf "%s|" "$@"\nprintf "\\n%s" "$PYTHONPATH"\n')
    fake_python.chmod(0o755)
    (tmp_path / "udd").mkdir()
    report = installer.install(
        user_data_dir=tmp_path / "udd", ext_id=EXPECTED_EXTENSION_ID, python=str(fake_python)
    )
    assert report.launcher is not None
    origin = f"chrome-extension://{EXPECTED_EXTENSION_ID}/"
    # Browsers start hosts with a minimal environment: no PATH at all here.
    out = subprocess.run(
        [str(report.launcher), origin], capture_output=True, text=True, env={}, check=True
    ).stdout
    args, pythonpath = out.split("\n")
    assert args == f"-m|native_host|{origin}|"
    assert pythonpath == str(Path(manifests.__file__).resolve().parents[2])


def test_install_is_idempotent(tmp_path: Path) -> None:
    udd = tmp_path / "udd"
    udd.mkdir()
    installer.install(user_data_dir=udd, ext_id=EXPECTED_EXTENSION_ID)
    first = snapshot(tmp_path)
    installer.install(user_data_dir=udd, ext_id=EXPECTED_EXTENSION_ID)
    assert snapshot(tmp_path) == first


@pytest.mark.parametrize("browser", ["chromium", "chrome", "all"])
def test_uninstall_removes_exactly_what_install_wrote(
    tmp_path: Path, private_home: Path, browser: str
) -> None:
    (private_home / ".config" / "chromium").mkdir(parents=True)  # the browser's own folder exists
    (private_home / ".config" / "chromium" / "Local State").write_text("{}")
    before = snapshot(tmp_path)
    report = installer.install(browser, ext_id=EXPECTED_EXTENSION_ID, home=private_home)
    assert report.written
    for path in report.written:
        assert json.loads(path.read_text())["name"] == NATIVE_HOST_NAME
    assert snapshot(tmp_path) != before
    installer.uninstall(browser, home=private_home)
    assert snapshot(tmp_path) == before


def test_uninstall_of_one_browser_keeps_the_other_and_the_launcher(private_home: Path) -> None:
    installer.install("chromium", ext_id=EXPECTED_EXTENSION_ID, home=private_home)
    chrome = installer.install("chrome", ext_id=EXPECTED_EXTENSION_ID, home=private_home)
    installer.uninstall("chromium", home=private_home)
    assert not (private_home / ".config" / "chromium").exists()
    assert chrome.written[0].is_file()
    assert chrome.launcher is not None and chrome.launcher.is_file()
    installer.uninstall("chrome", home=private_home)
    assert not chrome.launcher.exists()


def test_uninstall_with_a_user_data_dir_removes_what_install_wrote_there(tmp_path: Path) -> None:
    udd = tmp_path / "udd"
    udd.mkdir()
    before = snapshot(tmp_path)
    installer.install(user_data_dir=udd, ext_id=EXPECTED_EXTENSION_ID)
    installer.uninstall(user_data_dir=udd)
    assert snapshot(tmp_path) == before


def test_uninstall_leaves_someone_else_s_manifest_alone(private_home: Path) -> None:
    folder = private_home / ".config" / "chromium" / "NativeMessagingHosts"
    folder.mkdir(parents=True)
    foreign = folder / f"{NATIVE_HOST_NAME}.json"
    foreign.write_text(json.dumps({"name": "something.else"}))
    installer.uninstall("chromium", home=private_home)
    assert foreign.is_file()


def test_uninstall_when_nothing_was_installed_is_fine(private_home: Path) -> None:
    assert installer.uninstall("all", home=private_home).removed == []


def test_locations_data_covers_every_os() -> None:
    linux = {loc.browser: loc for loc in locations.LOCATIONS if loc.os == "linux"}
    assert linux["chromium"].folder == "~/.config/chromium/NativeMessagingHosts"
    assert linux["chrome"].folder == "~/.config/google-chrome/NativeMessagingHosts"
    assert {loc.os for loc in locations.LOCATIONS} == {"linux", "macos", "windows"}
    for browser in ("chrome", "chrome-beta", "chrome-dev", "chrome-canary", "chromium", "edge", "brave",
                    "vivaldi", "opera", "firefox"):
        assert {loc.os for loc in locations.LOCATIONS if loc.browser == browser} == {
            "linux",
            "macos",
            "windows",
        }
    for loc in locations.LOCATIONS:
        assert (loc.folder is None) != (loc.registry is None)
        assert loc.browser in locations.BROWSER_NAMES
        assert (loc.registry is not None) == (loc.os == "windows")
        assert (loc.sandbox is None) == (loc.app_id is None)
        assert loc.profile is not None, "every row can tell whether its browser is installed"


def test_an_unknown_browser_is_an_install_error_naming_the_choices() -> None:
    with pytest.raises(InstallError, match=r"Choose one of: .*chromium"):
        installer.install("netscape", ext_id=EXPECTED_EXTENSION_ID)


def test_all_with_no_browser_found_is_an_install_error_ending_with_the_fix() -> None:
    with pytest.raises(InstallError) as info:
        installer.install("all", ext_id=EXPECTED_EXTENSION_ID, present=lambda _row: False)
    assert str(info.value).endswith("`webctx install --browser chromium`.")


@pytest.mark.parametrize("bad", ["bad id!", "ABC", "kbmgfelnojabkebealaikmhmkcjnbgp", "z" * 32])
def test_an_extension_id_that_cannot_be_valid_is_refused_and_nothing_is_written(
    tmp_path: Path, bad: str
) -> None:
    """Regression (fresh-user report B3): `--extension-id 'bad id!'` was written into allowed_origins."""
    udd = tmp_path / "udd"
    with pytest.raises(InstallError, match="not a Chromium extension id"):
        installer.install("chromium", user_data_dir=udd, ext_id=bad)
    assert not (udd / "NativeMessagingHosts").exists()
