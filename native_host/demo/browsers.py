"""DATA: which browser `webctx demo` starts, in order of preference, and the lookup that reads it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from typing import Final

from native_host.errors import BrowserNotFound

BROWSER_CANDIDATES: Final[tuple[str, ...]] = (
    "/usr/lib/chromium/chromium",  # Debian's real binary; /usr/bin/chromium is a shell wrapper (recipe §9.7)
    "chromium",
    "google-chrome",
    "google-chrome-stable",
    "microsoft-edge",
    "brave-browser",
)
"""Absolute paths are taken if executable; bare names are looked up on PATH."""

GECKO_NAMES: Final[tuple[str, ...]] = ("firefox", "iceweasel", "librewolf", "waterfox", "floorp", "zen")
"""Executable names (or name prefixes) of Firefox-family browsers, which take none of Chromium's flags."""

FIREFOX_STEPS: Final = (
    "To try Firefox, run `webctx install --browser firefox`, load the manifest.json in the folder "
    "`webctx extension-path --firefox` prints from about:debugging (This Firefox, Load Temporary "
    "Add-on), open a page, then run `webctx context`."
)
"""How to try webctx with Firefox, which `webctx demo` cannot start (README "Install")."""

INSTALL_FIX: Final = "sudo apt-get install chromium"
"""How to get a browser on Debian/Ubuntu (the platform `scripts/setup.sh` targets)."""


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


def find_browser(candidates: Sequence[str] | None = None, *, path: str | None = None) -> str:
    """The first installed browser from `candidates` (default BROWSER_CANDIDATES, read at call
    time), searching `path` (default $PATH) for bare names. Returns an absolute path.
    Raises BrowserNotFound (with `.fix`) when there is none."""
    names = BROWSER_CANDIDATES if candidates is None else candidates
    for name in names:
        if os.path.isabs(name):
            if os.path.isfile(name) and os.access(name, os.X_OK):
                return name
            continue
        found = shutil.which(name, path=path)
        if found:
            return os.path.abspath(found)
    looked = ", ".join(names) or "(nothing)"
    raise BrowserNotFound(
        f"No Chromium-family browser is installed (looked for {looked}). "
        f"Install one with `{INSTALL_FIX}`, or pass --browser PATH.",
        fix=INSTALL_FIX,
    )
