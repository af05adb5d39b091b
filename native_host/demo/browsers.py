"""Which browser `webctx demo` starts: the first installed one of install/programs.py's table (one
table per OS, shared with `webctx install`'s "found" detection), and the rules that keep
Firefox-family browsers out."""

from __future__ import annotations

import os
from typing import Final

from native_host.errors import BrowserNotFound
from native_host.install.locations import OsName, current_os
from native_host.install.programs import Machine, demo_browsers, demo_names

GECKO_NAMES: Final[tuple[str, ...]] = ("firefox", "iceweasel", "librewolf", "waterfox", "floorp", "zen")
"""Executable names (or name prefixes) of Firefox-family browsers, which take none of Chromium's flags."""

FIREFOX_STEPS: Final = (
    "To try Firefox, run `webctx install --browser firefox`, load the manifest.json in the folder "
    "`webctx extension-path --firefox` prints from about:debugging (This Firefox, Load Temporary "
    "Add-on), open a page, then run `webctx context`."
)
"""How to try webctx with Firefox, which `webctx demo` cannot start (docs/install.md)."""

INSTALL_FIXES: Final[dict[OsName, str]] = {
    "linux": "sudo apt-get install chromium",
    "macos": "install Google Chrome from https://www.google.com/chrome/ (or `brew install --cask chromium`)",
    "windows": "install Google Chrome from https://www.google.com/chrome/, or use Microsoft Edge",
}
"""How to get a Chromium-family browser on each OS (Debian/Ubuntu's package on Linux, the one
`scripts/setup.sh` installs)."""


def install_fix(os_name: OsName | None = None) -> str:
    """INSTALL_FIXES for `os_name` (default: this OS)."""
    return INSTALL_FIXES[os_name or current_os()]


def check_chromium_family(browser: str) -> None:
    """Raise BrowserNotFound at once when `browser` (a path or name; symlinks followed) is a
    Firefox-family browser: the demo passes Chromium's command-line flags, which Firefox ignores or
    refuses, so it would only fail after the whole time limit."""
    names = {os.path.basename(browser).lower(), os.path.basename(os.path.realpath(browser)).lower()}
    if any(name.startswith(gecko) for name in names for gecko in GECKO_NAMES):
        fix = "pass a Chromium-family browser with --browser, or leave --browser out"
        raise BrowserNotFound(
            f"`webctx demo` starts Chromium-family browsers only (Chromium, Chrome, Edge, Brave), and "
            f"{browser} is a Firefox-family one: {fix}. {FIREFOX_STEPS}",
            fix=fix,
        )


def find_browser(machine: Machine | None = None) -> str:
    """The first installed Chromium-family browser without a sandbox on `machine` (default: this
    one), in install/programs.py's order for its OS. Returns an absolute path. Raises
    BrowserNotFound (with `.fix`, the OS's INSTALL_FIXES entry) when there is none."""
    machine = machine or Machine()
    for _, path in demo_browsers(machine):
        return path
    os_name = machine.os or current_os()
    fix = install_fix(os_name)
    looked = ", ".join(demo_names(os_name))
    raise BrowserNotFound(
        f"No Chromium-family browser is installed (looked for {looked}). "
        f"To get one: {fix}; or pass --browser PATH.",
        fix=fix,
    )
