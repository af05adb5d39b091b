"""DATA: where each browser looks for a user-level native messaging host manifest, per OS.

Sources:
- Chrome's native messaging docs, "Native messaging host location"
  (https://developer.chrome.com/docs/extensions/develop/concepts/native-messaging#native-messaging-host-location):
  Chrome and Chromium folders on Linux and macOS, `HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts`
  on Windows (its default value = the manifest file's full path). Chrome's beta/dev/canary channels
  use their own user data folders (`google-chrome-beta`, `google-chrome-unstable`, …) on Linux and
  macOS and share Chrome's registry key on Windows.
- Edge, Brave and Vivaldi are Chromium builds that use the same scheme under their own user data
  folders / registry keys (Edge: Microsoft's "Native messaging" page for extensions).
- Opera reads Google Chrome's locations (it has no folder of its own); its rows repeat Chrome's.
- Flatpak (`~/.var/app/<app-id>/config/…`, `~/.var/app/<app-id>/.mozilla/…`) and Snap
  (`~/snap/<name>/common/…`) are the sandboxed browsers' own config folders. A sandboxed browser
  cannot run a program outside its sandbox: `sandbox` and `note` say what webctx does about it.
- Firefox: MDN "Native manifests" (`~/.mozilla/native-messaging-hosts`,
  `~/Library/Application Support/Mozilla/NativeMessagingHosts`,
  `HKCU\\Software\\Mozilla\\NativeMessagingHosts`; `allowed_extensions`).
- Chromium 156 on Debian with `--user-data-dir=<udd>` reads `<udd>/NativeMessagingHosts/` and not
  `~/.config/chromium/NativeMessagingHosts/` (measured, chromium-recipe §4.1): `USER_DATA_DIR_FOLDER`.

One reader (`manifests.py`) serves every row; a new browser is a new row. Paths use `~` for the
user's home and `/` as separator on every OS (Windows rows' `profile` included).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

OsName = Literal["linux", "macos", "windows"]
ManifestKind = Literal["chromium", "firefox"]
"""`chromium`: `allowed_origins: ["chrome-extension://<id>/"]`; `firefox`: `allowed_extensions: [<id>]`."""
Sandbox = Literal["flatpak", "snap"]

USER_DATA_DIR_FOLDER: Final = "NativeMessagingHosts"
"""Folder inside a Chromium `--user-data-dir` that the browser reads host manifests from."""

FLATPAK_NOTE: Final = (
    "A Flatpak browser cannot start programs outside its sandbox: webctx writes a launcher inside "
    "the sandbox that runs the host through `flatpak-spawn --host`. Allow that once with "
    "`flatpak override --user --talk-name=org.freedesktop.Flatpak {app_id}`, then restart the browser."
)
SNAP_NOTE: Final = (
    "Snap confinement lets the {app_id} snap start only programs inside the snap, so it may refuse to "
    "start the webctx host (\"Native host has exited.\"). If `webctx doctor` reports that, use the "
    "browser from a .deb or Flatpak instead."
)


@dataclass(frozen=True)
class Location:
    """Where `browser` looks for user-level host manifests on `os`.

    `folder` (`~` = home): the manifest goes there (Linux, macOS). `registry`: on Windows, the key
    under which the subkey `<host name>` has the manifest file's full path as its default value.
    `profile`: the browser's own user data folder (`~`-relative); its existence, or the browser's
    program (programs.py, the one table of executables), shows the browser is installed.
    `sandbox`/`app_id`: the Flatpak app id or Snap name of a sandboxed browser.
    """

    browser: str
    os: OsName
    folder: str | None = None
    registry: str | None = None
    kind: ManifestKind = "chromium"
    profile: str | None = None
    sandbox: Sandbox | None = None
    app_id: str | None = None

    def path(self, home: Path | None = None) -> Path | None:
        """The folder with `~` expanded against `home` (default: the user's home); None for registry rows."""
        return expand(self.folder, home)

    def profile_path(self, home: Path | None = None) -> Path | None:
        """The browser's user data folder with `~` expanded, or None when the row names none."""
        return expand(self.profile, home)

    @property
    def note(self) -> str | None:
        """What the user must know about this row's sandbox, or None."""
        if self.sandbox == "flatpak":
            return FLATPAK_NOTE.format(app_id=self.app_id)
        if self.sandbox == "snap":
            return SNAP_NOTE.format(app_id=self.app_id)
        return None


def expand(folder: str | None, home: Path | None = None) -> Path | None:
    """`folder` with a leading `~/` replaced by `home` (default: the user's home)."""
    if folder is None:
        return None
    if folder.startswith("~/"):
        return (home or Path.home()) / folder[2:]
    return Path(folder)


BROWSER_NAMES: Final[dict[str, str]] = {
    "chrome": "Google Chrome",
    "chrome-beta": "Google Chrome Beta",
    "chrome-dev": "Google Chrome Dev",
    "chrome-canary": "Google Chrome Canary",
    "chrome-for-testing": "Google Chrome for Testing",
    "chromium": "Chromium",
    "edge": "Microsoft Edge",
    "edge-beta": "Microsoft Edge Beta",
    "edge-dev": "Microsoft Edge Dev",
    "edge-canary": "Microsoft Edge Canary",
    "brave": "Brave",
    "brave-beta": "Brave Beta",
    "brave-nightly": "Brave Nightly",
    "vivaldi": "Vivaldi",
    "opera": "Opera",
    "firefox": "Firefox",
    "chromium-flatpak": "Chromium (Flatpak)",
    "chrome-flatpak": "Google Chrome (Flatpak)",
    "edge-flatpak": "Microsoft Edge (Flatpak)",
    "brave-flatpak": "Brave (Flatpak)",
    "firefox-flatpak": "Firefox (Flatpak)",
    "chromium-snap": "Chromium (Snap)",
    "firefox-snap": "Firefox (Snap)",
}
"""Display names for the `browser` keys below and programs.py's (some of which, such as Chrome for
Testing, have no row here: the demo can start them, `webctx install` has no folder for them yet)."""

def load_steps(browser: str) -> str:
    """How to load the unpacked extension in `browser` (a key of BROWSER_NAMES), as one sentence
    ending with where the folder comes from. Chromium-family browsers open their own
    `<scheme>://extensions` page; Firefox loads the Firefox build as a temporary add-on."""
    family = browser.split("-", 1)[0]
    if family == "firefox":
        return ("about:debugging#/runtime/this-firefox → Load Temporary Add-on… → manifest.json in the "
                "folder `webctx extension-path --firefox` prints")
    page = EXTENSIONS_PAGES.get(family, "chrome://extensions")
    return f"{page} → Developer mode → Load unpacked → the folder `webctx extension-path` prints"


EXTENSIONS_PAGES: Final[dict[str, str]] = {
    "edge": "edge://extensions",
    "brave": "brave://extensions",
    "vivaldi": "vivaldi://extensions",
    "opera": "opera://extensions",
}
"""Each Chromium-family browser's own extensions page (all of them also accept chrome://extensions)."""

_MAC: Final = "~/Library/Application Support"
_WIN: Final = "~/AppData/Local"

LOCATIONS: Final[tuple[Location, ...]] = (
    # Linux ----------------------------------------------------------------------------------
    Location("chrome", "linux", folder="~/.config/google-chrome/NativeMessagingHosts",
             profile="~/.config/google-chrome"),
    Location("chrome-beta", "linux", folder="~/.config/google-chrome-beta/NativeMessagingHosts",
             profile="~/.config/google-chrome-beta"),
    Location("chrome-dev", "linux", folder="~/.config/google-chrome-unstable/NativeMessagingHosts",
             profile="~/.config/google-chrome-unstable"),
    Location("chrome-canary", "linux", folder="~/.config/google-chrome-canary/NativeMessagingHosts",
             profile="~/.config/google-chrome-canary"),
    Location("chromium", "linux", folder="~/.config/chromium/NativeMessagingHosts",
             profile="~/.config/chromium"),
    Location("edge", "linux", folder="~/.config/microsoft-edge/NativeMessagingHosts",
             profile="~/.config/microsoft-edge"),
    Location("brave", "linux", folder="~/.config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
             profile="~/.config/BraveSoftware/Brave-Browser"),
    Location("vivaldi", "linux", folder="~/.config/vivaldi/NativeMessagingHosts",
             profile="~/.config/vivaldi"),
    Location("opera", "linux", folder="~/.config/google-chrome/NativeMessagingHosts",
             profile="~/.config/opera"),
    Location("firefox", "linux", folder="~/.mozilla/native-messaging-hosts", kind="firefox",
             profile="~/.mozilla/firefox"),
    Location("chromium-flatpak", "linux",
             folder="~/.var/app/org.chromium.Chromium/config/chromium/NativeMessagingHosts",
             profile="~/.var/app/org.chromium.Chromium", sandbox="flatpak", app_id="org.chromium.Chromium"),
    Location("chrome-flatpak", "linux",
             folder="~/.var/app/com.google.Chrome/config/google-chrome/NativeMessagingHosts",
             profile="~/.var/app/com.google.Chrome", sandbox="flatpak", app_id="com.google.Chrome"),
    Location("edge-flatpak", "linux",
             folder="~/.var/app/com.microsoft.Edge/config/microsoft-edge/NativeMessagingHosts",
             profile="~/.var/app/com.microsoft.Edge", sandbox="flatpak", app_id="com.microsoft.Edge"),
    Location("brave-flatpak", "linux",
             folder="~/.var/app/com.brave.Browser/config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
             profile="~/.var/app/com.brave.Browser", sandbox="flatpak", app_id="com.brave.Browser"),
    Location("firefox-flatpak", "linux",
             folder="~/.var/app/org.mozilla.firefox/.mozilla/native-messaging-hosts", kind="firefox",
             profile="~/.var/app/org.mozilla.firefox", sandbox="flatpak", app_id="org.mozilla.firefox"),
    Location("chromium-snap", "linux", folder="~/snap/chromium/common/chromium/NativeMessagingHosts",
             profile="~/snap/chromium", sandbox="snap", app_id="chromium"),
    Location("firefox-snap", "linux", folder="~/snap/firefox/common/.mozilla/native-messaging-hosts",
             kind="firefox", profile="~/snap/firefox",
             sandbox="snap", app_id="firefox"),
    # macOS ----------------------------------------------------------------------------------
    Location("chrome", "macos", folder=f"{_MAC}/Google/Chrome/NativeMessagingHosts",
             profile=f"{_MAC}/Google/Chrome"),
    Location("chrome-beta", "macos", folder=f"{_MAC}/Google/Chrome Beta/NativeMessagingHosts",
             profile=f"{_MAC}/Google/Chrome Beta"),
    Location("chrome-dev", "macos", folder=f"{_MAC}/Google/Chrome Dev/NativeMessagingHosts",
             profile=f"{_MAC}/Google/Chrome Dev"),
    Location("chrome-canary", "macos", folder=f"{_MAC}/Google/Chrome Canary/NativeMessagingHosts",
             profile=f"{_MAC}/Google/Chrome Canary"),
    Location("chromium", "macos", folder=f"{_MAC}/Chromium/NativeMessagingHosts",
             profile=f"{_MAC}/Chromium"),
    Location("edge", "macos", folder=f"{_MAC}/Microsoft Edge/NativeMessagingHosts",
             profile=f"{_MAC}/Microsoft Edge"),
    Location("brave", "macos", folder=f"{_MAC}/BraveSoftware/Brave-Browser/NativeMessagingHosts",
             profile=f"{_MAC}/BraveSoftware/Brave-Browser"),
    Location("vivaldi", "macos", folder=f"{_MAC}/Vivaldi/NativeMessagingHosts",
             profile=f"{_MAC}/Vivaldi"),
    Location("opera", "macos", folder=f"{_MAC}/Google/Chrome/NativeMessagingHosts",
             profile=f"{_MAC}/com.operasoftware.Opera"),
    Location("firefox", "macos", folder=f"{_MAC}/Mozilla/NativeMessagingHosts", kind="firefox",
             profile=f"{_MAC}/Firefox"),
    # Windows: HKCU\<key>\<host name> (default value) = full path of the manifest file ---------
    Location("chrome", "windows", registry=r"HKCU\Software\Google\Chrome\NativeMessagingHosts",
             profile=f"{_WIN}/Google/Chrome/User Data"),
    Location("chrome-beta", "windows", registry=r"HKCU\Software\Google\Chrome\NativeMessagingHosts",
             profile=f"{_WIN}/Google/Chrome Beta/User Data"),
    Location("chrome-dev", "windows", registry=r"HKCU\Software\Google\Chrome\NativeMessagingHosts",
             profile=f"{_WIN}/Google/Chrome Dev/User Data"),
    Location("chrome-canary", "windows", registry=r"HKCU\Software\Google\Chrome\NativeMessagingHosts",
             profile=f"{_WIN}/Google/Chrome SxS/User Data"),
    Location("chromium", "windows", registry=r"HKCU\Software\Chromium\NativeMessagingHosts",
             profile=f"{_WIN}/Chromium/User Data"),
    Location("edge", "windows", registry=r"HKCU\Software\Microsoft\Edge\NativeMessagingHosts",
             profile=f"{_WIN}/Microsoft/Edge/User Data"),
    Location("brave", "windows", registry=r"HKCU\Software\BraveSoftware\Brave-Browser\NativeMessagingHosts",
             profile=f"{_WIN}/BraveSoftware/Brave-Browser/User Data"),
    Location("vivaldi", "windows", registry=r"HKCU\Software\Vivaldi\NativeMessagingHosts",
             profile=f"{_WIN}/Vivaldi/User Data"),
    Location("opera", "windows", registry=r"HKCU\Software\Google\Chrome\NativeMessagingHosts",
             profile="~/AppData/Roaming/Opera Software/Opera Stable"),
    Location("firefox", "windows", registry=r"HKCU\Software\Mozilla\NativeMessagingHosts", kind="firefox",
             profile="~/AppData/Roaming/Mozilla/Firefox"),
)


def current_os() -> OsName:
    """This machine's OS in the table's terms."""
    if sys.platform == "darwin":
        return "macos"
    if sys.platform == "win32":
        return "windows"
    return "linux"


def locations_for(browser: str, os: OsName | None = None) -> list[Location]:
    """The rows for `browser` on `os` (default: this OS); `browser="all"` gives every row of `os`."""
    os = os or current_os()
    return [loc for loc in LOCATIONS if loc.os == os and browser in ("all", loc.browser)]


def browsers(os: OsName | None = None) -> list[str]:
    """Browser keys `webctx install --browser` accepts on `os` (in table order)."""
    return [loc.browser for loc in locations_for("all", os)]


def all_browsers() -> list[str]:
    """Every browser key of any OS, in table order without repeats (argparse's choices)."""
    return list(dict.fromkeys(loc.browser for loc in LOCATIONS))
