"""install/programs.py: one table of browser executables per OS, read by `webctx demo`
(demo/browsers.py) and by `webctx install --browser all`'s "found" detection (manifests.py), tested
against fake file-system roots for Linux, macOS and Windows."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from native_host.demo.browsers import find_browser
from native_host.errors import BrowserNotFound
from native_host.install import locations, programs
from native_host.install.manifests import browser_present
from native_host.install.programs import Machine

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the fake roots rely on POSIX exec bits")


def make_executable(path: Path) -> Path:
    """An empty executable file at `path` (parents created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "root").mkdir()
    (tmp_path / "home").mkdir(exist_ok=True)  # the autouse isolated_home made it
    (tmp_path / "bin").mkdir()
    return tmp_path


def mac(root: Path) -> Machine:
    return Machine(os="macos", root=root / "root", home=root / "home", env={}, path=str(root / "bin"))


def linux(root: Path) -> Machine:
    return Machine(os="linux", root=root / "root", home=root / "home", env={}, path=str(root / "bin"))


def windows(root: Path) -> Machine:
    env = {
        "ProgramFiles": str(root / "root" / "Program Files"),
        "PROGRAMFILES(X86)": str(root / "root" / "Program Files (x86)"),  # Windows ignores case
        "LOCALAPPDATA": str(root / "home" / "AppData" / "Local"),
        "USERPROFILE": str(root / "home"),
    }
    return Machine(os="windows", root=root / "root", home=root / "home", env=env, path=str(root / "bin"))


MAC_APPS = {
    "chrome": "Google Chrome.app/Contents/MacOS/Google Chrome",
    "edge": "Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
    "brave": "Brave Browser.app/Contents/MacOS/Brave Browser",
    "chromium": "Chromium.app/Contents/MacOS/Chromium",
    "chrome-for-testing": "Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
    "chrome-canary": "Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary",
    "edge-beta": "Microsoft Edge Beta.app/Contents/MacOS/Microsoft Edge Beta",
}


@pytest.mark.parametrize("where", ["/Applications", "~/Applications"])
@pytest.mark.parametrize("browser", sorted(MAC_APPS))
def test_macos_finds_each_app_in_applications_or_the_users_applications(
    root: Path, browser: str, where: str
) -> None:
    base = root / "root" / "Applications" if where == "/Applications" else root / "home" / "Applications"
    executable = make_executable(base / MAC_APPS[browser])
    assert programs.installed(browser, mac(root)) == str(executable)
    assert find_browser(mac(root)) == str(executable)  # the only one: the demo starts it


def test_macos_prefers_chrome_and_ignores_an_app_without_its_executable(root: Path) -> None:
    (root / "root" / "Applications" / "Google Chrome.app" / "Contents").mkdir(parents=True)  # broken
    edge = make_executable(root / "root" / "Applications" / MAC_APPS["edge"])
    assert find_browser(mac(root)) == str(edge)
    chrome = make_executable(root / "home" / "Applications" / MAC_APPS["chrome"])
    assert find_browser(mac(root)) == str(chrome)


WINDOWS_BASES = ["Program Files", "Program Files (x86)", "AppData/Local"]
WINDOWS_EXES = {
    "chrome": "Google/Chrome/Application/chrome.exe",
    "edge": "Microsoft/Edge/Application/msedge.exe",
    "brave": "BraveSoftware/Brave-Browser/Application/brave.exe",
    "chrome-beta": "Google/Chrome Beta/Application/chrome.exe",
}


@pytest.mark.parametrize("base", WINDOWS_BASES)
@pytest.mark.parametrize("browser", sorted(WINDOWS_EXES))
def test_windows_finds_program_files_x86_and_per_user_installs(root: Path, browser: str, base: str) -> None:
    folder = root / "home" if base.startswith("AppData") else root / "root"
    executable = make_executable(folder / base / WINDOWS_EXES[browser])
    assert programs.installed(browser, windows(root)) == str(executable)
    assert find_browser(windows(root)) == str(executable)


def test_windows_canary_is_per_user_and_a_missing_variable_skips_its_paths(root: Path) -> None:
    canary = make_executable(root / "home" / "AppData/Local/Google/Chrome SxS/Application/chrome.exe")
    assert programs.installed("chrome-canary", windows(root)) == str(canary)
    no_localappdata = Machine(os="windows", root=root / "root", env={"ProgramFiles": str(root)})
    assert programs.installed("chrome-canary", no_localappdata) is None


def test_linux_prefers_debians_chromium_then_names_on_path(root: Path) -> None:
    edge = make_executable(root / "bin" / "microsoft-edge")
    assert find_browser(linux(root)) == str(edge)
    chrome = make_executable(root / "root" / "opt/google/chrome/chrome")
    assert find_browser(linux(root)) == str(chrome)
    chromium = make_executable(root / "root" / "usr/lib/chromium/chromium")
    assert find_browser(linux(root)) == str(chromium)


def test_chrome_for_testing_in_puppeteers_cache_picks_the_highest_version(root: Path) -> None:
    cache = root / "home" / ".cache/puppeteer/chrome"
    make_executable(cache / "linux-99.0.1/chrome-linux64/chrome")
    newest = make_executable(cache / "linux-131.0.6778.85/chrome-linux64/chrome")
    assert programs.installed("chrome-for-testing", linux(root)) == str(newest)
    assert find_browser(linux(root)) == str(newest)


def test_the_demo_never_starts_a_sandboxed_or_firefox_browser(root: Path) -> None:
    make_executable(root / "root" / "var/lib/flatpak/exports/bin/org.chromium.Chromium")
    make_executable(root / "root" / "snap/bin/chromium")
    make_executable(root / "bin" / "firefox")
    with pytest.raises(BrowserNotFound, match=r"apt-get install chromium"):
        find_browser(linux(root))
    with pytest.raises(BrowserNotFound, match=r"google\.com/chrome"):
        find_browser(mac(root))


def _row(browser: str, os_name: locations.OsName) -> locations.Location:
    [row] = [r for r in locations.locations_for(browser, os_name) if r.browser == browser]
    return row


@pytest.mark.parametrize(
    ("browser", "os_name", "executable"),
    [
        ("chrome", "macos", "root/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"),
        ("brave", "macos", "home/Applications/Brave Browser.app/Contents/MacOS/Brave Browser"),
        ("edge", "windows", "root/Program Files (x86)/Microsoft/Edge/Application/msedge.exe"),
        ("chrome", "windows", "home/AppData/Local/Google/Chrome/Application/chrome.exe"),
        ("chromium-flatpak", "linux", "home/.local/share/flatpak/exports/bin/org.chromium.Chromium"),
        ("firefox", "linux", "bin/firefox-esr"),
    ],
)
def test_install_finds_a_browser_from_the_same_table(
    root: Path, browser: str, os_name: locations.OsName, executable: str
) -> None:
    machine = {"macos": mac, "windows": windows, "linux": linux}[os_name](root)
    row = _row(browser, os_name)
    assert not browser_present(row, root / "home", machine)
    make_executable(root / executable)
    assert browser_present(row, root / "home", machine)


def test_every_install_row_has_programs_and_every_program_a_name() -> None:
    rows = {(row.browser, row.os) for row in locations.LOCATIONS}
    table = {(p.browser, p.os) for p in programs.PROGRAMS}
    assert rows <= table, f"install rows without programs: {sorted(rows - table)}"
    assert {p.browser for p in programs.PROGRAMS} <= set(locations.BROWSER_NAMES)
    assert len(table) == len(programs.PROGRAMS), "one row per browser and OS"
    for os_name in ("linux", "macos", "windows"):
        keys = [p.browser for p in programs.programs_for(os_name)]
        for wanted in ("chrome", "chrome-beta", "chrome-dev", "chrome-canary", "chrome-for-testing",
                       "chromium", "edge", "brave"):
            assert wanted in keys, (os_name, wanted)
