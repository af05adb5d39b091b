"""DATA: where each browser looks for a user-level native messaging host manifest, per OS.

Sources:
- Chrome's native messaging docs, "Native messaging host location"
  (https://developer.chrome.com/docs/extensions/develop/concepts/native-messaging#native-messaging-host-location):
  Chrome and Chromium folders on Linux and macOS, the `HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts`
  registry key on Windows. Edge, Brave and Vivaldi are Chromium builds that use the same scheme under
  their own user data folders / registry keys (Edge: Microsoft's "Native messaging" page for
  extensions).
- Flatpak and Snap rows are the browsers' sandboxed config folders; a sandboxed browser can only
  start a host that exists inside the sandbox, so those rows are not wired yet.
- Firefox: MDN "Native manifests" (`~/.mozilla/native-messaging-hosts`, `allowed_extensions`).
- Chromium 156 on Debian with `--user-data-dir=<udd>` reads `<udd>/NativeMessagingHosts/` and not
  `~/.config/chromium/NativeMessagingHosts/` (measured, chromium-recipe §4.1): `USER_DATA_DIR_FOLDER`.

One reader (`manifests.py`) serves every row; a new browser is a new row. `wired=True` marks the
rows `webctx install` writes today; the others are kept as data so the code is ready for them.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

OsName = Literal["linux", "macos", "windows"]
ManifestKind = Literal["chromium", "firefox"]
"""`chromium`: `allowed_origins: ["chrome-extension://<id>/"]`; `firefox`: `allowed_extensions: [<id>]`."""

USER_DATA_DIR_FOLDER: Final = "NativeMessagingHosts"
"""Folder inside a Chromium `--user-data-dir` that the browser reads host manifests from."""


@dataclass(frozen=True)
class Location:
    """Where `browser` looks for user-level host manifests on `os`: a `folder` (`~` = home) or,
    on Windows, a `registry` key under which `<host name>` holds the manifest path."""

    browser: str
    os: OsName
    folder: str | None = None
    registry: str | None = None
    kind: ManifestKind = "chromium"
    wired: bool = False
    """True when `webctx install` writes this row today."""
    programs: tuple[str, ...] = ()
    """Executables (names on PATH or absolute paths) whose presence shows the browser is installed."""

    def path(self, home: Path | None = None) -> Path | None:
        """The folder with `~` expanded against `home` (default: the user's home); None for registry rows."""
        if self.folder is None:
            return None
        if self.folder.startswith("~/"):
            return (home or Path.home()) / self.folder[2:]
        return Path(self.folder)


BROWSER_NAMES: Final[dict[str, str]] = {
    "chromium": "Chromium",
    "chrome": "Google Chrome",
    "edge": "Microsoft Edge",
    "brave": "Brave",
    "vivaldi": "Vivaldi",
    "chromium-flatpak": "Chromium (Flatpak)",
    "chrome-flatpak": "Google Chrome (Flatpak)",
    "chromium-snap": "Chromium (Snap)",
    "firefox": "Firefox",
}
"""Display names for the `browser` keys below."""

LOCATIONS: Final[tuple[Location, ...]] = (
    # Linux
    Location(
        "chromium", "linux", folder="~/.config/chromium/NativeMessagingHosts", wired=True,
        programs=("/usr/lib/chromium/chromium", "chromium", "chromium-browser"),
    ),
    Location(
        "chrome", "linux", folder="~/.config/google-chrome/NativeMessagingHosts", wired=True,
        programs=("google-chrome", "google-chrome-stable", "/opt/google/chrome/chrome"),
    ),
    Location("edge", "linux", folder="~/.config/microsoft-edge/NativeMessagingHosts"),
    Location("brave", "linux", folder="~/.config/BraveSoftware/Brave-Browser/NativeMessagingHosts"),
    Location("vivaldi", "linux", folder="~/.config/vivaldi/NativeMessagingHosts"),
    Location(
        "chromium-flatpak", "linux",
        folder="~/.var/app/org.chromium.Chromium/config/chromium/NativeMessagingHosts",
    ),
    Location(
        "chrome-flatpak", "linux",
        folder="~/.var/app/com.google.Chrome/config/google-chrome/NativeMessagingHosts",
    ),
    Location("chromium-snap", "linux", folder="~/snap/chromium/common/chromium/NativeMessagingHosts"),
    Location("firefox", "linux", folder="~/.mozilla/native-messaging-hosts", kind="firefox"),
    # macOS
    Location("chromium", "macos", folder="~/Library/Application Support/Chromium/NativeMessagingHosts"),
    Location("chrome", "macos", folder="~/Library/Application Support/Google/Chrome/NativeMessagingHosts"),
    Location("edge", "macos", folder="~/Library/Application Support/Microsoft Edge/NativeMessagingHosts"),
    Location(
        "brave", "macos",
        folder="~/Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts",
    ),
    Location("vivaldi", "macos", folder="~/Library/Application Support/Vivaldi/NativeMessagingHosts"),
    Location(
        "firefox", "macos",
        folder="~/Library/Application Support/Mozilla/NativeMessagingHosts", kind="firefox",
    ),
    # Windows: HKCU\<key>\<host name> (default value) = full path of the manifest file
    Location("chromium", "windows", registry=r"HKCU\Software\Chromium\NativeMessagingHosts"),
    Location("chrome", "windows", registry=r"HKCU\Software\Google\Chrome\NativeMessagingHosts"),
    Location("edge", "windows", registry=r"HKCU\Software\Microsoft\Edge\NativeMessagingHosts"),
    Location("brave", "windows", registry=r"HKCU\Software\BraveSoftware\Brave-Browser\NativeMessagingHosts"),
    Location("vivaldi", "windows", registry=r"HKCU\Software\Vivaldi\NativeMessagingHosts"),
    Location("firefox", "windows", registry=r"HKCU\Software\Mozilla\NativeMessagingHosts", kind="firefox"),
)


def current_os() -> OsName:
    """This machine's OS in the table's terms."""
    if sys.platform == "darwin":
        return "macos"
    if sys.platform == "win32":
        return "windows"
    return "linux"


def locations_for(browser: str, os: OsName | None = None) -> list[Location]:
    """The rows for `browser` on `os` (default: this OS); `browser="all"` gives every wired row."""
    os = os or current_os()
    if browser == "all":
        return [loc for loc in LOCATIONS if loc.os == os and loc.wired]
    return [loc for loc in LOCATIONS if loc.os == os and loc.browser == browser]


def wired_browsers(os: OsName | None = None) -> list[str]:
    """Browser keys `webctx install --browser` accepts on `os` today (in table order)."""
    os = os or current_os()
    return [loc.browser for loc in LOCATIONS if loc.os == os and loc.wired]
