"""The writer: native messaging host manifests and the launcher they point to (SPEC §6).

What `install` writes, and exactly what `uninstall` removes again:

    <data_dir>/webctx-native-host          #!/bin/sh launcher, 0755: exec <sys.executable> -m native_host "$@"
    <data_dir>/install-record.json         which manifests and folders install created
    <browser folder>/webctx.native_host.json   one per browser (locations.py), or
    <user-data-dir>/NativeMessagingHosts/webctx.native_host.json   with --user-data-dir

The manifest's `allowed_origins` holds the extension id derived from the public `key` in
`extension/manifest.json` (base64 → SHA-256 → first 32 hex digits, 0-f mapped to a-p), so the id
is stable without the Chrome Web Store. Browsers start native hosts with a minimal PATH, which is
why the launcher names the exact interpreter webctx runs under.
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
import shutil
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from native_host import NATIVE_HOST_NAME, paths
from native_host.errors import InstallError
from native_host.install.locations import (
    BROWSER_NAMES,
    USER_DATA_DIR_FOLDER,
    Location,
    ManifestKind,
    current_os,
    locations_for,
    wired_browsers,
)

log = logging.getLogger(__name__)

MANIFEST_FILE: Final = f"{NATIVE_HOST_NAME}.json"
"""File name of the host manifest; browsers look it up by the host name (`connectNative`)."""

LAUNCHER_FILE: Final = "webctx-native-host"
"""File name of the launcher script in the launcher folder (default `paths.data_dir()`)."""

RECORD_FILE: Final = "install-record.json"
"""What `install` created, kept beside the launcher so `uninstall` removes exactly that."""

DESCRIPTION: Final = "webctx: makes this browser a context provider for desktop AI hosts"


# ---------------------------------------------------------------------------------------------
# Extension id


EXTENSION_ID_PATTERN: Final = re.compile(r"^[a-p]{32}$")
"""A Chromium extension id: 32 letters a-p (the first 128 bits of a SHA-256, one letter a nibble)."""


def check_extension_id(ext_id: str) -> str:
    """Return `ext_id` if it is a well-formed Chromium extension id; raise InstallError if not."""
    if not EXTENSION_ID_PATTERN.fullmatch(ext_id):
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


# ---------------------------------------------------------------------------------------------
# The files


def host_manifest(launcher: Path, ext_id: str, kind: ManifestKind = "chromium") -> dict[str, Any]:
    """The host manifest JSON: `{name, description, path, type: "stdio", allowed_origins}` for
    Chromium-family browsers (`["chrome-extension://<id>/"]`), `allowed_extensions: [<id>]` for
    Firefox. `launcher` must be absolute (Chromium reports a relative path as "not found")."""
    manifest: dict[str, Any] = {
        "name": NATIVE_HOST_NAME,
        "description": DESCRIPTION,
        "path": str(launcher),
        "type": "stdio",
    }
    if kind == "firefox":
        manifest["allowed_extensions"] = [ext_id]
    else:
        manifest["allowed_origins"] = [f"chrome-extension://{ext_id}/"]
    return manifest


def launcher_text(python: str | None = None) -> str:
    """The launcher script: `exec`s the exact interpreter (`sys.executable`, not resolved, so a
    venv stays a venv) with `-m native_host "$@"`; the package's folder goes first on PYTHONPATH
    so the host runs the same code as this CLI."""
    interpreter = os.path.abspath(python or sys.executable)
    package_root = str(Path(__file__).resolve().parent.parent.parent)
    return (
        "#!/bin/sh\n"
        "# webctx native messaging host launcher: written by `webctx install`, removed by `uninstall`.\n"
        "# Browsers start native hosts with a minimal PATH, so this names the exact interpreter.\n"
        f'PYTHONPATH={shlex.quote(package_root)}${{PYTHONPATH:+:"$PYTHONPATH"}}\n'
        "export PYTHONPATH\n"
        f'exec {shlex.quote(interpreter)} -m native_host "$@"\n'
    )


def write_launcher(folder: Path | None = None, *, python: str | None = None) -> Path:
    """Write the launcher into `folder` (default `paths.data_dir()`) with mode 0755; return its path.
    Raises InstallError when the folder cannot be written."""
    folder = folder or paths.data_dir()
    launcher = folder / LAUNCHER_FILE
    if sys.platform == "win32":
        raise InstallError(
            "Installing on Windows (registry keys and a .bat launcher) is not wired yet. "
            "Use Linux for now.",
            fix="use Linux",
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = launcher.with_name(launcher.name + ".tmp")
        tmp.write_text(launcher_text(python), encoding="utf-8")
        tmp.chmod(0o755)
        tmp.replace(launcher)
    except OSError as exc:
        raise InstallError(
            f"Cannot write the launcher {launcher}: {exc.strerror}. Check the folder's permissions.",
            path=str(launcher),
            fix=f"make {folder} writable",
        ) from None
    return launcher


# ---------------------------------------------------------------------------------------------
# Install / uninstall


@dataclass(frozen=True)
class Target:
    """One place to put a host manifest: the browser key (or "user-data-dir"), and the folder."""

    browser: str
    folder: Path
    kind: ManifestKind = "chromium"

    @property
    def display_name(self) -> str:
        """People's name for the browser."""
        return BROWSER_NAMES.get(self.browser, self.browser)


@dataclass
class InstallReport:
    """What `install`/`uninstall` did: files written or removed, browsers skipped (with why)."""

    launcher: Path | None = None
    written: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    extension_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        """`{launcher, written, removed, skipped, extensionId}` with paths as strings."""
        return {
            "launcher": str(self.launcher) if self.launcher else None,
            "written": [str(p) for p in self.written],
            "removed": [str(p) for p in self.removed],
            "skipped": list(self.skipped),
            "extensionId": self.extension_id,
        }


def _browser_present(location: Location) -> bool:
    if not location.programs:
        return False
    for program in location.programs:
        if os.path.isabs(program):
            if os.access(program, os.X_OK):
                return True
        elif shutil.which(program):
            return True
    return False


def targets(
    browser: str = "all", *, user_data_dir: Path | None = None, home: Path | None = None
) -> tuple[list[Target], list[str]]:
    """Where to install for `browser` ("chromium", "chrome", … or "all"): the targets, and notes on
    browsers skipped. `user_data_dir` replaces the table: `<dir>/NativeMessagingHosts/`. With "all",
    only browsers found installed are targeted, or every wired one when none is found.
    Raises InstallError for a browser with no wired row on this OS."""
    if user_data_dir is not None:
        return [Target("user-data-dir", Path(user_data_dir).absolute() / USER_DATA_DIR_FOLDER)], []
    rows = locations_for(browser)
    if browser != "all":
        wired = [row for row in rows if row.wired]
        if not wired:
            choices = ", ".join([*wired_browsers(), "all"])
            raise InstallError(
                f"Installing for {browser!r} on {current_os()} is not supported yet. "
                f"Choose one of: {choices}.",
                browser=browser,
                fix=f"webctx install --browser {wired_browsers()[0] if wired_browsers() else 'all'}",
            )
        rows = wired
    skipped: list[str] = []
    if browser == "all":
        present = [row for row in rows if _browser_present(row)]
        if present:
            skipped = [
                f"{BROWSER_NAMES.get(r.browser, r.browser)} (not installed; "
                f"use --browser {r.browser} to install anyway)"
                for r in rows
                if r not in present
            ]
            rows = present
    found: list[Target] = []
    for row in rows:
        folder = row.path(home)
        if folder is not None:
            found.append(Target(row.browser, folder, row.kind))
    return found, skipped


def _record_path(launcher_dir: Path) -> Path:
    return launcher_dir / RECORD_FILE


def _load_record(launcher_dir: Path) -> dict[str, list[str]]:
    try:
        data = json.loads(_record_path(launcher_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"manifests": [], "dirs": []}
    if not isinstance(data, dict):
        return {"manifests": [], "dirs": []}
    return {
        "manifests": [str(p) for p in data.get("manifests", []) if isinstance(p, str)],
        "dirs": [str(p) for p in data.get("dirs", []) if isinstance(p, str)],
    }


def _save_record(launcher_dir: Path, record: dict[str, list[str]]) -> None:
    path = _record_path(launcher_dir)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)


def _make_dirs(folder: Path) -> list[Path]:
    """mkdir -p `folder`; return the folders that did not exist before, outermost first."""
    missing: list[Path] = []
    current = folder
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    folder.mkdir(parents=True, exist_ok=True)
    return list(reversed(missing))


def install(
    browser: str = "all",
    *,
    user_data_dir: Path | None = None,
    ext_id: str | None = None,
    launcher_dir: Path | None = None,
    home: Path | None = None,
    python: str | None = None,
) -> InstallReport:
    """Write the launcher and a host manifest for `browser` (SPEC §6); idempotent.

    `ext_id` defaults to the id derived from the extension's `key`; `launcher_dir` defaults to
    `paths.data_dir()`; `home` (for `~` in locations.py) to the user's home; `python` to
    `sys.executable`. Raises InstallError (message ending with the fix) when nothing can be written.
    """
    ext_id = check_extension_id(ext_id) if ext_id else extension_id()
    launcher_dir = (launcher_dir or paths.data_dir()).absolute()
    chosen, skipped = targets(browser, user_data_dir=user_data_dir, home=home)
    created_launcher_dirs = [] if launcher_dir.exists() else _make_dirs(launcher_dir)
    record = _load_record(launcher_dir)
    record["dirs"].extend(str(d) for d in created_launcher_dirs if str(d) not in record["dirs"])
    launcher = write_launcher(launcher_dir, python=python)
    report = InstallReport(launcher=launcher, skipped=skipped, extension_id=ext_id)
    for target in chosen:
        manifest_path = target.folder / MANIFEST_FILE
        try:
            created = _make_dirs(target.folder)
            text = json.dumps(host_manifest(launcher, ext_id, target.kind), indent=2) + "\n"
            tmp = manifest_path.with_name(manifest_path.name + ".tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.chmod(0o644)
            tmp.replace(manifest_path)
        except OSError as exc:
            _save_record(launcher_dir, record)
            raise InstallError(
                f"Cannot write the host manifest for {target.display_name} at {manifest_path}: "
                f"{exc.strerror}. Check the folder's permissions, or pass --user-data-dir.",
                browser=target.browser,
                path=str(manifest_path),
                fix=f"make {target.folder} writable",
            ) from None
        record["dirs"].extend(str(d) for d in created if str(d) not in record["dirs"])
        if str(manifest_path) not in record["manifests"]:
            record["manifests"].append(str(manifest_path))
        report.written.append(manifest_path)
        log.info("wrote host manifest %s", manifest_path)
    _save_record(launcher_dir, record)
    return report


def _is_our_manifest(path: Path) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("name") == NATIVE_HOST_NAME


def uninstall(
    browser: str = "all",
    *,
    user_data_dir: Path | None = None,
    launcher_dir: Path | None = None,
    home: Path | None = None,
) -> InstallReport:
    """Remove what `install` wrote for `browser`: its host manifests, the folders install created
    for them (when empty), and — once no manifest is left — the launcher and the install record.
    With "all", every manifest the record lists goes. Missing files are fine (idempotent).
    Raises InstallError when a file exists but cannot be removed."""
    launcher_dir = (launcher_dir or paths.data_dir()).absolute()
    record = _load_record(launcher_dir)
    report = InstallReport()
    if user_data_dir is not None or browser != "all":
        chosen, _ = targets(browser, user_data_dir=user_data_dir, home=home)
        wanted = [t.folder / MANIFEST_FILE for t in chosen]
    else:  # everything the record lists, plus every wired location (in case the record was lost)
        wanted = [Path(p) for p in record["manifests"]]
        for row in locations_for("all"):
            folder = row.path(home)
            if folder is not None:
                wanted.append(folder / MANIFEST_FILE)
    seen: set[Path] = set()
    for manifest_path in wanted:
        if manifest_path in seen:
            continue
        seen.add(manifest_path)
        if manifest_path.is_file() and _is_our_manifest(manifest_path):
            _remove(manifest_path)
            report.removed.append(manifest_path)
        if str(manifest_path) in record["manifests"]:
            record["manifests"].remove(str(manifest_path))
    # Folders install created, innermost first, only when empty now.
    for folder in sorted((Path(d) for d in record["dirs"]), key=lambda p: len(p.parts), reverse=True):
        if folder == launcher_dir or launcher_dir in folder.parents or folder in launcher_dir.parents:
            continue  # the launcher's own folders go with it, below
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
            report.removed.append(folder)
            record["dirs"].remove(str(folder))
    if record["manifests"]:
        _save_record(launcher_dir, record)
        return report
    for leftover in (launcher_dir / LAUNCHER_FILE, _record_path(launcher_dir)):
        if leftover.exists():
            _remove(leftover)
            report.removed.append(leftover)
    for d in sorted((Path(d) for d in record["dirs"]), key=lambda p: len(p.parts), reverse=True):
        if d.is_dir() and not any(d.iterdir()):
            d.rmdir()
            report.removed.append(d)
    return report


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InstallError(
            f"Cannot remove {path}: {exc.strerror}. Remove it by hand.",
            path=str(path),
            fix=f"rm {shlex.quote(str(path))}",
        ) from None


def is_executable(path: Path) -> bool:
    """True when `path` is a regular file with the owner's execute bit set."""
    try:
        return path.is_file() and bool(path.stat().st_mode & stat.S_IXUSR)
    except OSError:
        return False
