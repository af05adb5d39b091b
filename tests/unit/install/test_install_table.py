"""Every row of install/locations.py, on every OS, through the one writer (design.md §6).

macOS and Windows rows are installed here on Linux with `os_name=`; Windows registry writes go to
`MemoryRegistry`. The `winreg` implementation (`WinRegistry`) is not run by this suite.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from native_host import NATIVE_HOST_NAME
from native_host.cli.main import main
from native_host.errors import InstallError
from native_host.install import installer, locations, manifests
from native_host.install.registry import MemoryRegistry

EXT_ID = "kbmgfelnojabkebealaikmhmkcjnbgpl"
STORE_ID = "abcdefghijklmnopabcdefghijklmnop"

EXPECTED_FOLDERS: dict[tuple[str, str], str] = {
    ("chrome", "linux"): ".config/google-chrome/NativeMessagingHosts",
    ("chrome-beta", "linux"): ".config/google-chrome-beta/NativeMessagingHosts",
    ("chrome-dev", "linux"): ".config/google-chrome-unstable/NativeMessagingHosts",
    ("chrome-canary", "linux"): ".config/google-chrome-canary/NativeMessagingHosts",
    ("chromium", "linux"): ".config/chromium/NativeMessagingHosts",
    ("edge", "linux"): ".config/microsoft-edge/NativeMessagingHosts",
    ("brave", "linux"): ".config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
    ("vivaldi", "linux"): ".config/vivaldi/NativeMessagingHosts",
    ("opera", "linux"): ".config/google-chrome/NativeMessagingHosts",
    ("firefox", "linux"): ".mozilla/native-messaging-hosts",
    ("chromium-flatpak", "linux"): ".var/app/org.chromium.Chromium/config/chromium/NativeMessagingHosts",
    ("chrome-flatpak", "linux"): ".var/app/com.google.Chrome/config/google-chrome/NativeMessagingHosts",
    ("edge-flatpak", "linux"): ".var/app/com.microsoft.Edge/config/microsoft-edge/NativeMessagingHosts",
    ("brave-flatpak", "linux"):
        ".var/app/com.brave.Browser/config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
    ("firefox-flatpak", "linux"): ".var/app/org.mozilla.firefox/.mozilla/native-messaging-hosts",
    ("chromium-snap", "linux"): "snap/chromium/common/chromium/NativeMessagingHosts",
    ("firefox-snap", "linux"): "snap/firefox/common/.mozilla/native-messaging-hosts",
    ("chrome", "macos"): "Library/Application Support/Google/Chrome/NativeMessagingHosts",
    ("chrome-beta", "macos"): "Library/Application Support/Google/Chrome Beta/NativeMessagingHosts",
    ("chrome-dev", "macos"): "Library/Application Support/Google/Chrome Dev/NativeMessagingHosts",
    ("chrome-canary", "macos"): "Library/Application Support/Google/Chrome Canary/NativeMessagingHosts",
    ("chromium", "macos"): "Library/Application Support/Chromium/NativeMessagingHosts",
    ("edge", "macos"): "Library/Application Support/Microsoft Edge/NativeMessagingHosts",
    ("brave", "macos"): "Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts",
    ("vivaldi", "macos"): "Library/Application Support/Vivaldi/NativeMessagingHosts",
    ("opera", "macos"): "Library/Application Support/Google/Chrome/NativeMessagingHosts",
    ("firefox", "macos"): "Library/Application Support/Mozilla/NativeMessagingHosts",
}
EXPECTED_KEYS: dict[str, str] = {
    "chrome": r"HKCU\Software\Google\Chrome\NativeMessagingHosts",
    "chrome-beta": r"HKCU\Software\Google\Chrome\NativeMessagingHosts",
    "chrome-dev": r"HKCU\Software\Google\Chrome\NativeMessagingHosts",
    "chrome-canary": r"HKCU\Software\Google\Chrome\NativeMessagingHosts",
    "chromium": r"HKCU\Software\Chromium\NativeMessagingHosts",
    "edge": r"HKCU\Software\Microsoft\Edge\NativeMessagingHosts",
    "brave": r"HKCU\Software\BraveSoftware\Brave-Browser\NativeMessagingHosts",
    "vivaldi": r"HKCU\Software\Vivaldi\NativeMessagingHosts",
    "opera": r"HKCU\Software\Google\Chrome\NativeMessagingHosts",
    "firefox": r"HKCU\Software\Mozilla\NativeMessagingHosts",
}

ROWS = [pytest.param(row, id=f"{row.os}-{row.browser}") for row in locations.LOCATIONS]



def snapshot(root: Path) -> set[tuple[str, bool]]:
    return {(str(p.relative_to(root)), p.is_dir()) for p in root.rglob("*")}


def test_the_expected_tables_cover_every_row() -> None:
    folder_rows = {(r.browser, r.os) for r in locations.LOCATIONS if r.folder}
    assert folder_rows == set(EXPECTED_FOLDERS)
    assert {r.browser for r in locations.LOCATIONS if r.registry} == set(EXPECTED_KEYS)


@pytest.mark.parametrize("row", ROWS)
def test_install_then_uninstall_of_every_row(
    row: locations.Location, tmp_path: Path, isolated_home: Path
) -> None:
    launcher_dir = tmp_path / "launch"
    registry = MemoryRegistry()
    before = snapshot(tmp_path)
    report = installer.install(
        row.browser, os_name=row.os, home=isolated_home, launcher_dir=launcher_dir, registry=registry,
        ext_id=EXT_ID, extra_ids=[STORE_ID], python=sys.executable,
    )
    (entry,) = report.browsers
    written = snapshot(tmp_path)
    again = installer.install(
        row.browser, os_name=row.os, home=isolated_home, launcher_dir=launcher_dir, registry=registry,
        ext_id=EXT_ID, extra_ids=[STORE_ID], python=sys.executable,
    )
    assert snapshot(tmp_path) == written and again.to_json() == report.to_json(), "install is idempotent"
    if row.registry is None:
        expected = isolated_home / EXPECTED_FOLDERS[(row.browser, row.os)] / f"{NATIVE_HOST_NAME}.json"
        assert entry.manifest == expected
        assert registry.values == {}
    else:
        name = "webctx.native_host.firefox.json" if row.kind == "firefox" else "webctx.native_host.json"
        expected = launcher_dir / name
        assert entry.manifest == expected
        key = EXPECTED_KEYS[row.browser] + "\\webctx.native_host"
        assert registry.get_default(key) == str(expected)
        assert report.launcher == launcher_dir / "webctx-native-host.cmd"
    data = json.loads(expected.read_text())
    assert data["name"] == NATIVE_HOST_NAME and data["type"] == "stdio"
    assert Path(data["path"]).is_absolute() and manifests.is_executable(Path(data["path"]))
    if row.kind == "firefox":
        assert data["allowed_extensions"] == [manifests.GECKO_ID]
        assert "allowed_origins" not in data
    else:
        origins = [f"chrome-extension://{EXT_ID}/", f"chrome-extension://{STORE_ID}/"]
        assert data["allowed_origins"] == origins
    if row.sandbox == "flatpak":
        wrapper = isolated_home / ".var" / "app" / str(row.app_id) / "data" / "webctx" / "webctx-native-host"
        assert data["path"] == str(wrapper)
        assert f"flatpak-spawn --host {report.launcher}" in wrapper.read_text()
        assert entry.note is not None and f"--talk-name=org.freedesktop.Flatpak {row.app_id}" in entry.note
    elif row.sandbox == "snap":
        assert entry.note is not None and "snap" in entry.note.lower()
    else:
        assert data["path"] == str(report.launcher) and entry.note is None
    installer.uninstall(row.browser, os_name=row.os, home=isolated_home, launcher_dir=launcher_dir,
                        registry=registry)
    assert snapshot(tmp_path) == before
    assert registry.values == {}


def test_the_windows_launcher_is_a_cmd_that_pins_the_interpreter(tmp_path: Path) -> None:
    text = manifests.launcher_text(r"C:\Python312\python.exe", "windows")
    assert text.startswith("@echo off\r\n")
    assert '"C:\\Python312\\python.exe" -m native_host %*\r\n' in text


def test_windows_browsers_that_share_a_key_keep_it_until_the_last_is_removed(
    tmp_path: Path, isolated_home: Path
) -> None:
    registry = MemoryRegistry()
    kwargs = dict(os_name="windows", home=isolated_home, launcher_dir=tmp_path / "l", registry=registry)
    installer.install("chromium", ext_id=EXT_ID, **kwargs)  # type: ignore[arg-type]
    installer.install("edge", ext_id=EXT_ID, **kwargs)  # type: ignore[arg-type]
    installer.uninstall("chromium", **kwargs)  # type: ignore[arg-type]
    assert registry.get_default(r"HKCU\Software\Microsoft\Edge\NativeMessagingHosts\webctx.native_host")
    assert (tmp_path / "l" / "webctx.native_host.json").is_file(), "edge's key still names the manifest"
    installer.uninstall("edge", **kwargs)  # type: ignore[arg-type]
    assert registry.values == {} and not (tmp_path / "l").exists()


def test_dry_run_reports_every_file_and_writes_nothing(tmp_path: Path, isolated_home: Path) -> None:
    before = snapshot(tmp_path)
    report = installer.install("chromium-flatpak", ext_id=EXT_ID, home=isolated_home, dry_run=True)
    assert snapshot(tmp_path) == before
    (entry,) = report.browsers
    assert entry.written == [
        str(isolated_home / ".var/app/org.chromium.Chromium/data/webctx/webctx-native-host"),
        str(isolated_home / EXPECTED_FOLDERS[("chromium-flatpak", "linux")] / "webctx.native_host.json"),
    ]
    assert report.to_json()["dryRun"] is True


def test_all_installs_for_the_browsers_found_only(isolated_home: Path) -> None:
    (isolated_home / ".config" / "vivaldi").mkdir(parents=True)
    (isolated_home / ".var" / "app" / "org.mozilla.firefox").mkdir(parents=True)
    def profile_exists(row: locations.Location) -> bool:  # ignore programs installed on this machine
        profile = row.profile_path(isolated_home)
        return profile is not None and profile.exists()

    report = installer.install("all", ext_id=EXT_ID, home=isolated_home, present=profile_exists)
    assert {b.browser for b in report.browsers} == {"vivaldi", "firefox-flatpak"}
    assert "Chromium" in report.skipped


@pytest.mark.parametrize("bad", ["not-an-id", "ABCDEFGHIJKLMNOPABCDEFGHIJKLMNOP", "q" * 32])
def test_an_extension_id_that_is_neither_chromium_nor_firefox_is_refused(bad: str) -> None:
    with pytest.raises(InstallError, match="is not an extension id"):
        installer.install("chromium", ext_id=EXT_ID, extra_ids=[bad], dry_run=True)


def test_extension_ids_go_to_the_browsers_that_use_them() -> None:
    chromium, firefox = manifests.split_extension_ids([STORE_ID, "me@example.org", STORE_ID])
    assert chromium == [STORE_ID, STORE_ID] and firefox == ["me@example.org"]
    manifest = manifests.host_manifest("/x", [EXT_ID, STORE_ID, EXT_ID])
    assert manifest["allowed_origins"] == [f"chrome-extension://{i}/" for i in (EXT_ID, STORE_ID)]


def test_the_cli_takes_repeatable_extension_ids_and_prints_per_browser(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    udd = tmp_path / "udd"
    udd.mkdir()  # the browser made it on its first start
    code = main(["install", "--user-data-dir", str(udd), "--extension-id", STORE_ID,
                 "--extension-id", "me@example.org", "--dry-run"])
    assert code == 0
    out = capsys.readouterr().out
    assert f"would write {udd / 'NativeMessagingHosts' / 'webctx.native_host.json'}" in out
    assert "Load unpacked" in out and "Dry run: nothing was written." in out
    assert not (udd / "NativeMessagingHosts").exists()
    assert main(["install", "--user-data-dir", str(udd), "--extension-id", STORE_ID, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["extensionIds"][:2] == [EXT_ID, STORE_ID]
    manifest = json.loads((udd / "NativeMessagingHosts" / "webctx.native_host.json").read_text())
    assert f"chrome-extension://{STORE_ID}/" in manifest["allowed_origins"]


def test_install_says_per_browser_how_to_load_the_extension(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for browser in ("edge", "firefox-flatpak", "chromium"):
        assert main(["install", "--browser", browser, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "load the extension: edge://extensions → Developer mode → Load unpacked" in out
    assert "load the extension: about:debugging#/runtime/this-firefox → Load Temporary Add-on…" in out
    assert "`webctx extension-path --firefox`" in out
    assert "load the extension: chrome://extensions → Developer mode → Load unpacked" in out


def test_extension_path_prints_the_folder_alone(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extension-path"]) == 0
    out = capsys.readouterr().out
    assert out.endswith("\n") and out.count("\n") == 1
    assert (Path(out.strip()) / "manifest.json").is_file()


def test_the_launcher_ignores_another_python_first_on_path(tmp_path: Path) -> None:
    impostor = tmp_path / "bin" / "python3"
    impostor.parent.mkdir()
    impostor.write_text("#!/bin/sh\necho impostor\nexit 3\n")
    impostor.chmod(0o755)
    launcher = manifests.write_launcher(tmp_path / "l")
    done = subprocess.run(
        [str(launcher), "--version"], capture_output=True, text=True, timeout=30, input="",
        env={"PATH": f"{impostor.parent}:/usr/bin:/bin"}, check=False,
    )
    assert "impostor" not in done.stdout + done.stderr


def test_uninstall_dry_run_lists_what_it_would_remove_and_removes_nothing(
    tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = installer.install("chromium", ext_id=EXT_ID, home=isolated_home)
    before = snapshot(tmp_path)
    assert main(["uninstall", "--browser", "chromium", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"Would remove {report.written[0]}" in out
    # The CLI's log file (under ~/.local/state) is the one thing written.
    assert {e for e in snapshot(tmp_path) if not e[0].startswith("home/.local/state")} == before


def test_a_registry_that_refuses_the_write_is_an_install_error(tmp_path: Path, isolated_home: Path) -> None:
    class ReadOnlyRegistry(MemoryRegistry):
        def set_default(self, key: str, value: str) -> None:
            raise PermissionError(5, "Access is denied")

    with pytest.raises(InstallError, match=r"Cannot write the registry key HKCU\\Software\\Chromium"):
        installer.install("chromium", os_name="windows", home=isolated_home, launcher_dir=tmp_path / "l",
                          registry=ReadOnlyRegistry(), ext_id=EXT_ID)
