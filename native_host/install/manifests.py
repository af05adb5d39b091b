"""The writer: native messaging host manifests and the launcher they point to (design.md §6).

What `install` writes, and exactly what `uninstall` removes again:

    <data_dir>/webctx-native-host          #!/bin/sh launcher, 0755: exec <sys.executable> -m native_host "$@"
    <data_dir>/webctx-native-host.cmd      on Windows instead: "<python.exe>" -m native_host %*
    <data_dir>/install-record.json         which manifests, folders, files and registry keys install created
    <browser folder>/webctx.native_host.json   one per browser (locations.py), or
    <user-data-dir>/NativeMessagingHosts/webctx.native_host.json   with --user-data-dir
    ~/.var/app/<app-id>/data/webctx/webctx-native-host   Flatpak: runs the launcher via flatpak-spawn --host
    Windows: <data_dir>/webctx.native_host[.firefox].json and HKCU\\<key>\\webctx.native_host = its path

Every row of `locations.py` goes through the same code; `os_name` and `registry` are parameters so
the tests check every OS's rows on Linux (the Windows registry through `MemoryRegistry`).

The manifest's `allowed_origins` holds the extension id derived from the public `key` in
`extension/manifest.json` (base64 → SHA-256 → first 32 hex digits, 0-f mapped to a-p), so the id
is stable without the Chrome Web Store; `--extension-id` adds store-published ids beside it.
Firefox manifests carry `allowed_extensions: [GECKO_ID]` instead. Both are filled in from the
templates in `manifests/` (templates.py; manifests/README.md names the placeholders). Browsers
start native hosts with a minimal PATH, which is why the launcher names the exact interpreter
webctx runs under.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import logging
import os
import re
import shlex
import stat
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from native_host import NATIVE_HOST_NAME, paths
from native_host.errors import InstallError
from native_host.install import templates
from native_host.install.locations import (
    BROWSER_NAMES,
    USER_DATA_DIR_FOLDER,
    Location,
    ManifestKind,
    OsName,
    browsers,
    current_os,
    locations_for,
)
from native_host.install.programs import Machine, installed

log = logging.getLogger(__name__)

MANIFEST_FILE: Final = f"{NATIVE_HOST_NAME}.json"
"""File name of the host manifest; browsers look it up by the host name (`connectNative`)."""

FIREFOX_MANIFEST_FILE: Final = f"{NATIVE_HOST_NAME}.firefox.json"
"""On Windows both kinds of manifest live in the launcher folder; Firefox's gets this name."""

LAUNCHER_FILE: Final = "webctx-native-host"
"""File name of the launcher script in the launcher folder (default `paths.data_dir()`)."""

WINDOWS_LAUNCHER_FILE: Final = "webctx-native-host.cmd"
"""The launcher on Windows: a .cmd file (Chrome runs it through cmd.exe)."""

RECORD_FILE: Final = "install-record.json"
"""What `install` created, kept beside the launcher so `uninstall` removes exactly that."""

GECKO_ID: Final = "webctx@webctx.dev"
"""The Firefox extension id: `{gecko_id}` in manifests/extension-overlay.firefox.json (the build's
`browser_specific_settings.gecko.id`) and the first id the Firefox host manifest allows."""

CHROMIUM_ID_RE: Final = re.compile(r"^[a-p]{32}$")
"""A Chromium extension id: 32 letters a-p."""

GECKO_ID_RE: Final = re.compile(r"^(\{[0-9A-Fa-f-]{36}\}|[A-Za-z0-9._+-]*@[A-Za-z0-9._-]+)$")
"""A Firefox extension id: `name@domain` or a `{uuid}` (MDN, browser_specific_settings)."""


# ---------------------------------------------------------------------------------------------
# Extension id


def check_extension_id(ext_id: str) -> str:
    """Return `ext_id` if it is a well-formed Chromium extension id; raise InstallError if not."""
    if not CHROMIUM_ID_RE.fullmatch(ext_id):
        raise InstallError(
            f"{ext_id!r} is not a Chromium extension id (32 letters a-p, as chrome://extensions shows it). "
            "Pass the id shown for webctx on chrome://extensions, or leave --extension-id out.",
            fix="pass a 32-letter id of letters a-p",
        )
    return ext_id


def extension_id_from_key(key: str) -> str:
    """The Chromium extension id for a manifest `key` (base64 DER public key): SHA-256 of the
    decoded key, first 32 hex digits, each 0-f mapped to a-p. Raises InstallError on bad base64."""
    try:
        der = base64.b64decode("".join(key.split()), validate=True)
    except (binascii.Error, ValueError):
        raise InstallError(
            "The `key` in the extension's manifest.json is not valid base64. "
            "Restore extension/manifest.json from git.",
            fix="git checkout extension/manifest.json",
        ) from None
    digest = hashlib.sha256(der).hexdigest()[:32]
    return "".join("abcdefghijklmnop"[int(c, 16)] for c in digest)


def extension_id(extension_dir: Path | None = None) -> str:
    """The extension id derived from `key` in `<extension_dir>/manifest.json` (default
    `paths.extension_dir()`). Raises InstallError when the manifest or its `key` is missing."""
    try:
        folder = extension_dir or paths.extension_dir()
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InstallError(
            f"Cannot read the webctx extension's manifest.json ({exc}). Reinstall webctx, "
            "or pass --extension-id.",
            fix="pass --extension-id <id>",
        ) from None
    key = manifest.get("key") if isinstance(manifest, dict) else None
    if not isinstance(key, str) or not key:
        raise InstallError(
            "The extension's manifest.json has no `key`, so its id is not stable. "
            "Restore extension/manifest.json, or pass --extension-id.",
            fix="pass --extension-id <id>",
        )
    return extension_id_from_key(key)


def split_extension_ids(ids: Sequence[str]) -> tuple[list[str], list[str]]:
    """Sort `--extension-id` values into (Chromium ids, Firefox ids). Raises InstallError for a
    value that is neither 32 letters a-p nor `name@domain` / `{uuid}`."""
    chromium: list[str] = []
    firefox: list[str] = []
    for value in ids:
        if CHROMIUM_ID_RE.match(value):
            chromium.append(value)
        elif GECKO_ID_RE.match(value):
            firefox.append(value)
        else:
            raise InstallError(
                f"{value!r} is not an extension id: Chromium ids are 32 letters a-p (see "
                "chrome://extensions), Firefox ids look like name@domain. Pass a valid --extension-id.",
                fix="webctx install --extension-id <32 letters a-p>",
            )
    return chromium, firefox


# ---------------------------------------------------------------------------------------------
# The files


def host_manifest(
    launcher: Path | str, ids: Sequence[str], kind: ManifestKind = "chromium"
) -> dict[str, Any]:
    """The host manifest JSON, filled in from `manifests/host-manifest.<kind>.json`:
    `{name, description, path, type: "stdio", allowed_origins}` for Chromium-family browsers
    (`["chrome-extension://<id>/", …]`), `allowed_extensions: [<id>, …]` for Firefox; `ids` in
    order, each once. `launcher` must be absolute (Chromium reports a relative path as "not
    found"). Raises InstallError when the template is missing."""
    template = templates.load(templates.HOST_MANIFEST_TEMPLATES[kind])
    unique = list(dict.fromkeys(ids))
    values = {"host_name": NATIVE_HOST_NAME, "launcher": str(launcher), "extension_id": unique}
    manifest: dict[str, Any] = templates.fill(template, values)
    return manifest


def launcher_text(python: str | None = None, os_name: OsName | None = None) -> str:
    """The launcher script: runs the exact interpreter (`sys.executable`, not resolved, so a venv
    stays a venv) with `-m native_host` and the browser's arguments; the package's folder goes
    first on PYTHONPATH so the host runs the same code as this CLI. A `#!/bin/sh` script, or a
    `.cmd` batch file when `os_name` is "windows"."""
    interpreter = python or sys.executable
    package_root = str(Path(__file__).resolve().parent.parent.parent)
    if (os_name or current_os()) == "windows":
        return (
            "@echo off\r\n"
            "rem webctx native messaging host launcher: written by `webctx install`.\r\n"
            f'set "PYTHONPATH={package_root};%PYTHONPATH%"\r\n'
            f'"{interpreter}" -m native_host %*\r\n'
        )
    interpreter = os.path.abspath(interpreter)
    return (
        "#!/bin/sh\n"
        "# webctx native messaging host launcher: written by `webctx install`, removed by `uninstall`.\n"
        "# Browsers start native hosts with a minimal PATH, so this names the exact interpreter.\n"
        f'PYTHONPATH={shlex.quote(package_root)}${{PYTHONPATH:+:"$PYTHONPATH"}}\n'
        "export PYTHONPATH\n"
        f'exec {shlex.quote(interpreter)} -m native_host "$@"\n'
    )


def flatpak_wrapper_text(launcher: Path) -> str:
    """The launcher inside a Flatpak sandbox: runs the real one on the host (`flatpak-spawn --host`)."""
    return (
        "#!/bin/sh\n"
        "# webctx: the browser runs in a Flatpak sandbox; run the native host outside it.\n"
        f'exec flatpak-spawn --host {shlex.quote(str(launcher))} "$@"\n'
    )


def launcher_file(os_name: OsName | None = None) -> str:
    """The launcher's file name on `os_name` (default: this OS)."""
    return WINDOWS_LAUNCHER_FILE if (os_name or current_os()) == "windows" else LAUNCHER_FILE


def write_launcher(
    folder: Path | None = None, *, python: str | None = None, os_name: OsName | None = None
) -> Path:
    """Write the launcher into `folder` (default `paths.data_dir()`) with mode 0755; return its path.
    Raises InstallError when the folder cannot be written."""
    folder = folder or paths.data_dir()
    launcher = folder / launcher_file(os_name)
    write_file(launcher, launcher_text(python, os_name), 0o755)
    return launcher


def write_file(path: Path, text: str, mode: int) -> None:
    """Write `text` to `path` through a temp file + rename, with `mode`. Raises InstallError."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8", newline="")
        tmp.chmod(mode)
        tmp.replace(path)
    except OSError as exc:
        raise InstallError(
            f"Cannot write {path}: {exc.strerror}. Make {path.parent} writable, or pass --user-data-dir.",
            path=str(path),
            fix=f"make {path.parent} writable",
        ) from None


# ---------------------------------------------------------------------------------------------
# Where


@dataclass(frozen=True)
class Target:
    """One place to register the host: the browser key (or "user-data-dir"), where its manifest
    goes, the registry key naming it (Windows), and the sandbox launcher it needs (Flatpak)."""

    browser: str
    manifest: Path
    kind: ManifestKind = "chromium"
    registry: str | None = None
    wrapper: Path | None = None
    note: str | None = None

    @property
    def folder(self) -> Path:
        """The folder the manifest goes into."""
        return self.manifest.parent

    @property
    def display_name(self) -> str:
        """People's name for the browser."""
        return BROWSER_NAMES.get(self.browser, self.browser)


def browser_present(row: Location, home: Path | None = None, machine: Machine | None = None) -> bool:
    """True when the browser of `row` looks installed: its user data folder under `home` exists,
    or its program is where programs.py says on `machine` (default: this one, with `home`), when
    `row` is for that machine's OS (one table for the demo and this)."""
    profile = row.profile_path(home)
    if profile is not None and profile.exists():
        return True
    machine = machine or Machine(home=home)
    if row.os != (machine.os or current_os()):
        return False
    return installed(row.browser, replace(machine, os=row.os)) is not None


def target_for(
    row: Location, *, home: Path | None = None, launcher_dir: Path | None = None
) -> Target:
    """The Target of one locations.py row: the manifest in `row.folder`, or on Windows in
    `launcher_dir` (named by the registry key); Flatpak rows get a wrapper inside the sandbox."""
    launcher_dir = launcher_dir or paths.data_dir()
    if row.registry is not None:
        name = FIREFOX_MANIFEST_FILE if row.kind == "firefox" else MANIFEST_FILE
        key = f"{row.registry}\\{NATIVE_HOST_NAME}"
        return Target(row.browser, launcher_dir / name, row.kind, registry=key, note=row.note)
    folder = row.path(home)
    assert folder is not None  # every row has a folder or a registry key (tested)
    wrapper = None
    if row.sandbox == "flatpak":
        sandbox_home = row.profile_path(home)
        assert sandbox_home is not None
        wrapper = sandbox_home / "data" / "webctx" / LAUNCHER_FILE
    return Target(row.browser, folder / MANIFEST_FILE, row.kind, wrapper=wrapper, note=row.note)


def targets(
    browser: str = "all",
    *,
    user_data_dir: Path | None = None,
    home: Path | None = None,
    os_name: OsName | None = None,
    launcher_dir: Path | None = None,
    present: Callable[[Location], bool] | None = None,
) -> tuple[list[Target], list[str]]:
    """Where to install for `browser` ("chromium", "chrome", … or "all") on `os_name`: the targets,
    and notes on browsers skipped. `user_data_dir` replaces the table: `<dir>/NativeMessagingHosts/`.
    With "all", only browsers found installed (`present`, default `browser_present`) are targeted.
    Raises InstallError for a browser with no row on this OS, or "all" when none is installed."""
    if user_data_dir is not None:
        folder = Path(user_data_dir).absolute() / USER_DATA_DIR_FOLDER
        return [Target("user-data-dir", folder / MANIFEST_FILE)], []
    os_name = os_name or current_os()
    rows = locations_for(browser, os_name)
    if not rows:
        choices = ", ".join([*browsers(os_name), "all"])
        raise InstallError(
            f"webctx knows no browser {browser!r} on {os_name}. Choose one of: {choices}.",
            browser=browser,
            fix="webctx install --browser all",
        )
    skipped: list[str] = []
    if browser == "all":
        is_present = present or (lambda row: browser_present(row, home))
        found = [row for row in rows if is_present(row)]
        if not found:
            raise InstallError(
                f"No supported browser was found on this {os_name} machine. Install one (e.g. "
                "`sudo apt install chromium`), or name it: `webctx install --browser chromium`.",
                fix="webctx install --browser chromium",
            )
        skipped = [BROWSER_NAMES.get(r.browser, r.browser) for r in rows if r not in found]
        rows = found
    chosen: list[Target] = []
    for row in rows:
        target = target_for(row, home=home, launcher_dir=launcher_dir)
        if target not in chosen:
            chosen.append(target)
    return chosen, skipped


def is_executable(path: Path) -> bool:
    """True when `path` is a regular file with the owner's execute bit set."""
    try:
        return path.is_file() and bool(path.stat().st_mode & stat.S_IXUSR)
    except OSError:
        return False
