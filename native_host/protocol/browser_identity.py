"""Who started us: the browser's main pid, bundleId, name and version (design.md §3 descriptor fields).

```
os.getppid() ─► skip launcher shells (sh, cmd.exe, …) ─► walk up while the parent runs the same
executable (a helper process walks up to the main process) ─► main pid + executable
executable ─► macOS: the app bundle's Info.plist; else BROWSERS table by file name ─► bundleId, name
version ─► hello's browser.version, else Info.plist, else `<exe> --version` (known browsers
           only: we never run an unknown parent), else "unknown"
```
"""

from __future__ import annotations

import contextlib
import logging
import os
import plistlib
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import psutil

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BrowserKind:
    """One row of BROWSERS: executable file names (lower case, no `.exe`) → reverse-DNS id and name."""

    executables: tuple[str, ...]
    bundle_id: str
    name: str


BROWSERS: Final = (
    BrowserKind(("chromium", "chromium-browser", "chromium-freeworld"), "org.chromium.Chromium", "Chromium"),
    BrowserKind(
        ("chrome", "google-chrome", "google-chrome-stable", "google-chrome-beta", "google chrome"),
        "com.google.Chrome",
        "Google Chrome",
    ),
    BrowserKind(
        ("msedge", "microsoft-edge", "microsoft-edge-stable", "microsoft edge"),
        "com.microsoft.Edge",
        "Microsoft Edge",
    ),
    BrowserKind(("brave", "brave-browser", "brave browser"), "com.brave.Browser", "Brave"),
    BrowserKind(("vivaldi", "vivaldi-bin", "vivaldi-stable"), "com.vivaldi.Vivaldi", "Vivaldi"),
    BrowserKind(("firefox", "firefox-bin", "firefox-esr"), "org.mozilla.firefox", "Firefox"),
)
"""Browsers by executable name. Source: design.md §3 (`bundleId` list); the ids are the macOS
`CFBundleIdentifier`s and the Linux desktop-file ids of each browser. A new browser is a new row."""

LAUNCHERS: Final = frozenset({"sh", "bash", "dash", "zsh", "env", "cmd", "cmd.exe"})
"""Executables that may sit between the browser and us (a launcher script that does not `exec`,
Windows' `cmd.exe /c`); never a browser, so they are skipped when walking up."""

VERSION_TIMEOUT_S: Final = 2.0
"""Limit for the `<exe> --version` fallback, in seconds."""

_VERSION: Final = re.compile(r"\d+(?:\.\d+){1,3}")


@dataclass(frozen=True)
class BrowserIdentity:
    """The browser as the descriptor names it (design.md §3): main `pid`, `bundle_id`, `name`,
    `version`, and the main process's executable path (None when it could not be read)."""

    pid: int
    bundle_id: str
    name: str
    version: str
    executable: str | None


def _exe(process: psutil.Process) -> str | None:
    try:
        return process.exe() or None
    except psutil.Error:
        return None


def _stem(executable: str) -> str:
    name = Path(executable.replace("\\", "/")).name.lower()
    return name.removesuffix(".exe")


def find_browser_process(start_pid: int | None = None) -> tuple[int, str | None]:
    """Return `(pid, executable)` of the browser's main process, starting at `start_pid` (default:
    our parent): skip launcher shells, then walk up while the parent runs the same executable.
    Falls back to `(start_pid, None)` when the process table cannot be read."""
    pid = os.getppid() if start_pid is None else start_pid
    try:
        process = psutil.Process(pid)
        exe = _exe(process)
        while exe is not None and _stem(exe) in LAUNCHERS:
            parent = process.parent()
            if parent is None:
                break
            process, exe = parent, _exe(parent)
        while exe is not None:
            parent = process.parent()
            if parent is None or parent.pid == process.pid or _exe(parent) != exe:
                break
            process = parent
        return process.pid, exe
    except psutil.Error:
        return pid, None


def _kind_by_executable(executable: str) -> BrowserKind | None:
    stem = _stem(executable)
    if stem == "chrome" and "chromium" in executable.lower():  # snap, self-built Chromium
        stem = "chromium"
    return next((kind for kind in BROWSERS if stem in kind.executables), None)


def _kind_by_name(browser_name: str) -> BrowserKind | None:
    wanted = browser_name.strip().lower()
    return next((kind for kind in BROWSERS if wanted in (kind.name.lower(), *kind.executables)), None)


def kind_for(executable: str | None, browser_name: str | None = None) -> BrowserKind | None:
    """The BROWSERS row for `executable` (by file name), else for the hello's `browser_name`
    (matched against each row's `name`, case-insensitively), else None.

    A file named `chrome` is Google Chrome's, or Chromium's when its path or the hello's browser
    name says Chromium (Chromium builds name their binary `chrome` too).
    """
    by_executable = _kind_by_executable(executable) if executable else None
    by_name = _kind_by_name(browser_name) if browser_name else None
    chrome_binary = executable is not None and _stem(executable) == "chrome"
    if chrome_binary and by_name is not None and by_name.executables[0] == "chromium":
        return by_name
    return by_executable or by_name


def app_bundle_info(executable: str) -> dict[str, str]:
    """macOS: CFBundleIdentifier / CFBundleName / CFBundleShortVersionString of the `.app` that
    holds `executable`, as far as present; {} elsewhere or when unreadable."""
    path = Path(executable)
    for parent in path.parents:
        if parent.suffix == ".app":
            with contextlib.suppress(OSError, plistlib.InvalidFileException, ValueError):
                with (parent / "Contents" / "Info.plist").open("rb") as handle:
                    info = plistlib.load(handle)
                return {key: value for key, value in info.items() if isinstance(value, str)}
            return {}
    return {}


def version_from_executable(executable: str, *, timeout_s: float = VERSION_TIMEOUT_S) -> str | None:
    """Run `<executable> --version` (at most `timeout_s` seconds) and return the first dotted
    number in its output ("Chromium 156.0.8078.114 built on Debian" → "156.0.8078.114"), or None."""
    try:
        completed = subprocess.run(
            [executable, "--version"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout_s,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    match = _VERSION.search(completed.stdout.decode("utf-8", "replace"))
    return match.group(0) if match else None


def identify_browser(
    browser_name: str | None = None, browser_version: str | None = None, *, start_pid: int | None = None
) -> BrowserIdentity:
    """Identify the browser that started us. `browser_name`/`browser_version` come from the
    worker's `hello`. Blocking (reads the process table, may run `<exe> --version` for up to
    VERSION_TIMEOUT_S): call it in a thread from async code.

    An unknown browser gets `bundle_id` `unknown.<executable name>` and the hello's name.
    """
    pid, executable = find_browser_process(start_pid)
    bundle = app_bundle_info(executable) if executable else {}
    kind = kind_for(executable, browser_name)
    bundle_id = bundle.get("CFBundleIdentifier") or (kind.bundle_id if kind else None)
    if bundle_id is None:
        stem = re.sub(r"[^A-Za-z0-9-]+", "-", _stem(executable or "browser")).strip("-") or "browser"
        bundle_id = f"unknown.{stem}"
    name = (kind.name if kind else None) or bundle.get("CFBundleName") or browser_name or "Unknown browser"
    version = browser_version or bundle.get("CFBundleShortVersionString")
    if not version and executable and _kind_by_executable(executable) is not None:
        version = version_from_executable(executable)  # only ever runs a known browser
    identity = BrowserIdentity(pid, bundle_id, name, version or "unknown", executable)
    log.info("browser: pid %d, %s %s (%s)", identity.pid, identity.bundle_id, identity.version, executable)
    return identity
