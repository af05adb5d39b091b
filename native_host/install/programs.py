"""DATA: where each browser's program is, per OS: one table for `webctx demo` (which browser to start)
and `webctx install --browser all` (which browsers are installed).

Each OS's rows are in the demo's order of preference (the first installed Chromium-family browser
without a sandbox wins). `browser` is a key of locations.BROWSER_NAMES; a key with no locations.py
row (Chrome for Testing, Edge and Brave's beta/dev/canary/nightly channels) is one the demo can
start but `webctx install` has no manifest folder for yet.

A path is one of:
- an absolute path (`/usr/lib/chromium/chromium`, `/Applications/…`), read under `root` in tests;
- `~/…`, the user's home (macOS `~/Applications`, the Flatpak user installation);
- `%VAR%/…`, a Windows environment variable (`%ProgramFiles%`, `%ProgramFiles(x86)%`,
  `%LOCALAPPDATA%`), missing variables skip the path;
- a bare name, looked up on PATH;
- any of these with `*` in it (the version folders of Puppeteer's browser cache), the highest
  version first.

Sources: each vendor's default install folders (Chrome's and Edge's Windows installers put a
per-machine install in %ProgramFiles% / %ProgramFiles(x86)% and a per-user one in %LOCALAPPDATA%;
Canary ("SxS") is per-user only); the Linux packages' executables (`google-chrome*`,
`microsoft-edge*`, `brave-browser*`, Debian's `/usr/lib/chromium/chromium`, recipe §9.7: the
`/usr/bin/chromium` wrapper rewrites the command line); macOS app bundles in /Applications or
~/Applications; Chrome for Testing has no installer: `npx @puppeteer/browsers install chrome@stable`
unpacks it into ~/.cache/puppeteer, and people drag the macOS app to /Applications.

`python -m native_host.install.programs [--os macos]` prints the browser `webctx demo` would start
(stdlib only, so `scripts/setup.sh` asks it before anything is installed: one list of names, here);
exit status 1 when there is none.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from native_host.install.locations import OsName, Sandbox, current_os

Family = Literal["chromium", "firefox"]


@dataclass(frozen=True)
class Program:
    """Where `browser`'s executable may be on `os`: `paths` in the module docstring's forms, first
    match wins. `family`: Chromium's command line or Firefox's; `sandbox`: a Flatpak or Snap
    browser (found for `webctx install`, never started by the demo)."""

    browser: str
    os: OsName
    paths: tuple[str, ...]
    family: Family = "chromium"
    sandbox: Sandbox | None = None


def _apps(bundle: str, executable: str | None = None) -> tuple[str, ...]:
    """A macOS app's executable in /Applications and ~/Applications (`executable` defaults to the
    bundle's name, as Chrome, Edge and Brave name theirs)."""
    inner = f"{bundle}.app/Contents/MacOS/{executable or bundle}"
    return (f"/Applications/{inner}", f"~/Applications/{inner}")


def _win(folder: str, *, machine: bool = True) -> tuple[str, ...]:
    """A Windows install under %ProgramFiles%, %ProgramFiles(x86)% (`machine`) and %LOCALAPPDATA%."""
    bases = ("%ProgramFiles%", "%ProgramFiles(x86)%", "%LOCALAPPDATA%") if machine else ("%LOCALAPPDATA%",)
    return tuple(f"{base}/{folder}" for base in bases)


def _flatpak(app_id: str) -> tuple[str, ...]:
    """A Flatpak app's exported launcher, system-wide and per-user installation."""
    return (f"/var/lib/flatpak/exports/bin/{app_id}", f"~/.local/share/flatpak/exports/bin/{app_id}")


_PUPPETEER: Final = "~/.cache/puppeteer/chrome"
_CFT_MAC: Final = "Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing"

PROGRAMS: Final[tuple[Program, ...]] = (
    # Linux ----------------------------------------------------------------------------------
    Program("chromium", "linux", ("/usr/lib/chromium/chromium", "chromium", "chromium-browser")),
    Program("chrome", "linux", ("google-chrome", "google-chrome-stable", "/opt/google/chrome/chrome")),
    Program("chrome-for-testing", "linux", (f"{_PUPPETEER}/linux-*/chrome-linux64/chrome",)),
    Program("edge", "linux", ("microsoft-edge", "microsoft-edge-stable", "/opt/microsoft/msedge/msedge")),
    Program("brave", "linux", ("brave-browser", "brave", "/opt/brave.com/brave/brave")),
    Program("chrome-beta", "linux", ("google-chrome-beta", "/opt/google/chrome-beta/chrome")),
    Program("chrome-dev", "linux", ("google-chrome-unstable", "/opt/google/chrome-unstable/chrome")),
    Program("chrome-canary", "linux", ("google-chrome-canary", "/opt/google/chrome-canary/chrome")),
    Program("edge-beta", "linux", ("microsoft-edge-beta", "/opt/microsoft/msedge-beta/msedge")),
    Program("edge-dev", "linux", ("microsoft-edge-dev", "/opt/microsoft/msedge-dev/msedge")),
    Program("brave-beta", "linux", ("brave-browser-beta", "/opt/brave.com/brave-beta/brave")),
    Program("brave-nightly", "linux", ("brave-browser-nightly", "/opt/brave.com/brave-nightly/brave")),
    Program("vivaldi", "linux", ("vivaldi", "vivaldi-stable")),
    Program("opera", "linux", ("opera",)),
    Program("firefox", "linux", ("firefox", "firefox-esr"), family="firefox"),
    Program("chromium-snap", "linux", ("/snap/bin/chromium",), sandbox="snap"),
    Program("firefox-snap", "linux", ("/snap/bin/firefox",), family="firefox", sandbox="snap"),
    Program("chromium-flatpak", "linux", _flatpak("org.chromium.Chromium"), sandbox="flatpak"),
    Program("chrome-flatpak", "linux", _flatpak("com.google.Chrome"), sandbox="flatpak"),
    Program("edge-flatpak", "linux", _flatpak("com.microsoft.Edge"), sandbox="flatpak"),
    Program("brave-flatpak", "linux", _flatpak("com.brave.Browser"), sandbox="flatpak"),
    Program("firefox-flatpak", "linux", _flatpak("org.mozilla.firefox"), family="firefox", sandbox="flatpak"),
    # macOS ----------------------------------------------------------------------------------
    Program("chrome", "macos", _apps("Google Chrome")),
    Program("chromium", "macos", _apps("Chromium")),
    Program("chrome-for-testing", "macos", (
        *_apps("Google Chrome for Testing"),
        f"{_PUPPETEER}/mac*-*/chrome-mac-*/{_CFT_MAC}",
    )),
    Program("edge", "macos", _apps("Microsoft Edge")),
    Program("brave", "macos", _apps("Brave Browser")),
    Program("chrome-beta", "macos", _apps("Google Chrome Beta")),
    Program("chrome-dev", "macos", _apps("Google Chrome Dev")),
    Program("chrome-canary", "macos", _apps("Google Chrome Canary")),
    Program("edge-beta", "macos", _apps("Microsoft Edge Beta")),
    Program("edge-dev", "macos", _apps("Microsoft Edge Dev")),
    Program("edge-canary", "macos", _apps("Microsoft Edge Canary")),
    Program("brave-beta", "macos", _apps("Brave Browser Beta")),
    Program("brave-nightly", "macos", _apps("Brave Browser Nightly")),
    Program("vivaldi", "macos", _apps("Vivaldi")),
    Program("opera", "macos", _apps("Opera")),
    Program("firefox", "macos", _apps("Firefox", "firefox"), family="firefox"),
    # Windows --------------------------------------------------------------------------------
    Program("chrome", "windows", _win("Google/Chrome/Application/chrome.exe")),
    Program("edge", "windows", _win("Microsoft/Edge/Application/msedge.exe")),
    Program("chromium", "windows", _win("Chromium/Application/chrome.exe")),
    Program("chrome-for-testing", "windows", (
        "%USERPROFILE%/.cache/puppeteer/chrome/win64-*/chrome-win64/chrome.exe",
    )),
    Program("brave", "windows", _win("BraveSoftware/Brave-Browser/Application/brave.exe")),
    Program("chrome-beta", "windows", _win("Google/Chrome Beta/Application/chrome.exe")),
    Program("chrome-dev", "windows", _win("Google/Chrome Dev/Application/chrome.exe")),
    Program("chrome-canary", "windows", _win("Google/Chrome SxS/Application/chrome.exe", machine=False)),
    Program("edge-beta", "windows", _win("Microsoft/Edge Beta/Application/msedge.exe")),
    Program("edge-dev", "windows", _win("Microsoft/Edge Dev/Application/msedge.exe")),
    Program("edge-canary", "windows", _win("Microsoft/Edge SxS/Application/msedge.exe", machine=False)),
    Program("brave-beta", "windows", _win("BraveSoftware/Brave-Browser-Beta/Application/brave.exe")),
    Program("brave-nightly", "windows", _win("BraveSoftware/Brave-Browser-Nightly/Application/brave.exe")),
    Program("vivaldi", "windows", _win("Vivaldi/Application/vivaldi.exe")),
    Program("opera", "windows", ("%LOCALAPPDATA%/Programs/Opera/opera.exe",)),
    Program("firefox", "windows", _win("Mozilla Firefox/firefox.exe"), family="firefox"),
)


@dataclass(frozen=True)
class Machine:
    """The parts of a machine a lookup reads; each defaults to this one. `root`: where absolute
    paths are read (tests: a fake file system); `home`: what `~` means; `env`: the environment
    `%VAR%` reads; `path`: the PATH for bare names (os.pathsep-separated)."""

    os: OsName | None = None
    root: Path | None = None
    home: Path | None = None
    env: Mapping[str, str] | None = None
    path: str | None = None


_VAR = re.compile(r"%([^%]+)%")


def expand(path: str, machine: Machine) -> str | None:
    """`path` (a table entry) as a file-system path on `machine`, or None when it is a bare name or
    names an environment variable that is not set. Does not look at the file system."""
    if "/" not in path and "%" not in path:
        return None  # a bare name: looked up on PATH
    env = machine.env if machine.env is not None else os.environ
    if "%" in path:
        lowered = {key.lower(): value for key, value in env.items()}  # Windows' names ignore case
        missing = False

        def variable(match: re.Match[str]) -> str:
            nonlocal missing
            value = lowered.get(match.group(1).lower(), "")
            missing = missing or not value
            return value.replace("\\", "/")

        path = _VAR.sub(variable, path)
        if missing:
            return None
    elif path.startswith("~/"):
        path = str((machine.home or Path.home()) / path[2:])
    elif machine.root is not None and path.startswith("/"):
        path = str(machine.root / path.lstrip("/"))
    return path


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _version_key(path: str) -> list[tuple[int, int | str]]:
    """Sort key comparing digit runs as numbers (linux-131.0 after linux-99.0)."""
    return [(1, int(part)) if part.isdigit() else (0, part) for part in re.split(r"(\d+)", path)]


def located(program: Program, machine: Machine | None = None) -> str | None:
    """The absolute path of `program`'s first installed executable on `machine`, or None."""
    machine = machine or Machine()
    for entry in program.paths:
        expanded = expand(entry, machine)
        if expanded is None:
            if "%" in entry:
                continue
            found = shutil.which(entry, path=machine.path)
            if found:
                return os.path.abspath(found)
            continue
        if "*" in expanded:
            for match in sorted(glob.glob(expanded), key=_version_key, reverse=True):
                if _executable(match):
                    return match
        elif _executable(expanded):
            return expanded
    return None


def programs_for(os_name: OsName | None = None, browser: str = "all") -> list[Program]:
    """The rows of `os_name` (default: this OS) for `browser` ("all": every row), in table order."""
    os_name = os_name or current_os()
    return [p for p in PROGRAMS if p.os == os_name and browser in ("all", p.browser)]


def installed(browser: str, machine: Machine | None = None) -> str | None:
    """The executable of `browser` (a table key) on `machine` (default: this one), or None."""
    machine = machine or Machine()
    for program in programs_for(machine.os, browser):
        found = located(program, machine)
        if found is not None:
            return found
    return None


def demo_browsers(machine: Machine | None = None) -> Iterator[tuple[Program, str]]:
    """Installed Chromium-family browsers without a sandbox on `machine`, in the demo's order:
    (row, absolute path of its executable)."""
    machine = machine or Machine()
    for program in programs_for(machine.os):
        if program.family != "chromium" or program.sandbox is not None:
            continue
        found = located(program, machine)
        if found is not None:
            yield program, found


def demo_names(os_name: OsName | None = None) -> list[str]:
    """Every path or name the demo looks for on `os_name`, in order (for error messages)."""
    return [path for p in programs_for(os_name) if p.family == "chromium" and p.sandbox is None
            for path in p.paths]


def main(argv: list[str] | None = None) -> int:
    """`python -m native_host.install.programs [--os linux|macos|windows]`: print the browser
    `webctx demo` would start on that OS's table (default: this OS) and return 0, or return 1 when
    none is installed (scripts/setup.sh)."""
    parser = argparse.ArgumentParser(prog="python -m native_host.install.programs")
    parser.add_argument("--os", choices=["linux", "macos", "windows"], help="whose table to read")
    args = parser.parse_args(argv)
    for _, path in demo_browsers(Machine(os=args.os)):
        print(path)  # its own process, run by scripts/setup.sh: never the native host's stdout
        return 0
    return 1


if __name__ == "__main__":
    sys.exit(main())
