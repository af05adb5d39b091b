"""Install and uninstall: the launcher, a host manifest per browser, and the record of both (design.md §6).

`install` writes what `manifests.py` describes for the targets it picks and records every file,
folder and registry value it created in `<launcher dir>/install-record.json`; `uninstall` removes
exactly those (a manifest that is not ours is left alone), so running either twice is harmless.
"""

from __future__ import annotations

import json
import logging
import shlex
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from native_host import NATIVE_HOST_NAME, paths
from native_host.errors import InstallError
from native_host.install.firefox import FIREFOX_BUILD_NAME
from native_host.install.locations import BROWSER_NAMES, Location, OsName, current_os
from native_host.install.manifests import (
    GECKO_ID,
    LAUNCHER_FILE,
    RECORD_FILE,
    WINDOWS_LAUNCHER_FILE,
    Target,
    check_extension_id,
    extension_id,
    flatpak_wrapper_text,
    host_manifest,
    launcher_file,
    split_extension_ids,
    targets,
    write_file,
    write_launcher,
)
from native_host.install.registry import Registry, default_registry

log = logging.getLogger(__name__)


@dataclass
class BrowserReport:
    """What install did (or, with `dry_run`, would do) for one browser: `written` lists files and
    registry values as `path` or `HKCU\\…\\webctx.native_host = <path>`; `note` is its sandbox advice."""

    browser: str
    manifest: Path
    written: list[str] = field(default_factory=list)
    note: str | None = None

    @property
    def display_name(self) -> str:
        """People's name for the browser."""
        return BROWSER_NAMES.get(self.browser, self.browser)

    def to_json(self) -> dict[str, Any]:
        """`{browser, name, manifest, written, note}`."""
        return {
            "browser": self.browser,
            "name": self.display_name,
            "manifest": str(self.manifest),
            "written": list(self.written),
            "note": self.note,
        }


@dataclass
class InstallReport:
    """What `install`/`uninstall` did: files written or removed, per browser, browsers skipped."""

    launcher: Path | None = None
    written: list[Path] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    browsers: list[BrowserReport] = field(default_factory=list)
    extension_id: str | None = None
    extension_ids: list[str] = field(default_factory=list)
    dry_run: bool = False

    def to_json(self) -> dict[str, Any]:
        """`{launcher, written, removed, skipped, browsers, extensionId, extensionIds, dryRun}`."""
        return {
            "launcher": str(self.launcher) if self.launcher else None,
            "written": [str(p) for p in self.written],
            "removed": list(self.removed),
            "skipped": list(self.skipped),
            "browsers": [b.to_json() for b in self.browsers],
            "extensionId": self.extension_id,
            "extensionIds": list(self.extension_ids),
            "dryRun": self.dry_run,
        }


Record = dict[str, list[str]]
_RECORD_KEYS: Final = ("manifests", "dirs", "files", "registry")


def _record_path(launcher_dir: Path) -> Path:
    return launcher_dir / RECORD_FILE


def load_record(launcher_dir: Path | None = None) -> Record:
    """The install record `{manifests, dirs, files, registry}` (lists of strings); empty lists when
    there is none or it cannot be read."""
    launcher_dir = launcher_dir or paths.data_dir()
    try:
        data = json.loads(_record_path(launcher_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    return {k: [str(p) for p in data.get(k, []) if isinstance(p, str)] for k in _RECORD_KEYS}


def _save_record(launcher_dir: Path, record: Record) -> None:
    write_file(_record_path(launcher_dir), json.dumps(record, indent=2) + "\n", 0o644)


def _missing_dirs(folder: Path) -> list[Path]:
    """The folders `mkdir -p folder` would create, outermost first."""
    missing: list[Path] = []
    current = folder
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    return list(reversed(missing))


def _add(record: Record, key: str, value: str) -> None:
    if value not in record[key]:
        record[key].append(value)


def check_user_data_dir(folder: Path) -> None:
    """Raise InstallError unless `folder` is an existing folder: a browser creates its
    --user-data-dir on first start, so a missing one is almost always a typo, and writing
    `DIR/NativeMessagingHosts/` there would silently create the whole mistyped path."""
    quoted = shlex.quote(str(folder))
    if not folder.exists():
        raise InstallError(
            f"--user-data-dir {folder} does not exist; start the browser once with "
            f"--user-data-dir={quoted} (it creates the folder), then run `webctx install` again.",
            path=str(folder), fix=f"start the browser once with --user-data-dir={quoted}",
        )
    if not folder.is_dir():
        raise InstallError(
            f"--user-data-dir {folder} is not a folder; pass the folder the browser was started with "
            "as --user-data-dir=DIR.",
            path=str(folder), fix="pass the folder the browser was started with",
        )


def install(
    browser: str = "all",
    *,
    user_data_dir: Path | None = None,
    ext_id: str | None = None,
    extra_ids: Sequence[str] = (),
    launcher_dir: Path | None = None,
    home: Path | None = None,
    python: str | None = None,
    os_name: OsName | None = None,
    registry: Registry | None = None,
    present: Callable[[Location], bool] | None = None,
    dry_run: bool = False,
) -> InstallReport:
    """Write the launcher and a host manifest for `browser` (design.md §6); idempotent.

    `ext_id` defaults to the id derived from the extension's `key`; `extra_ids` are more ids to
    allow (`--extension-id`: Chromium ids go to `allowed_origins`, Firefox ids to
    `allowed_extensions` beside GECKO_ID); `launcher_dir` defaults to `paths.data_dir()`; `home`
    (for `~` in locations.py) to the user's home; `python` to `sys.executable`; `os_name` to this
    OS; `registry` (Windows rows) to the real registry on Windows. `dry_run` computes the same
    report and writes nothing. Raises InstallError (message ending with the fix).
    """
    os_name = os_name or current_os()
    primary = check_extension_id(ext_id) if ext_id else extension_id()
    if user_data_dir is not None:
        check_user_data_dir(user_data_dir)
    chromium_extra, firefox_extra = split_extension_ids(extra_ids)
    chromium_ids = list(dict.fromkeys([primary, *chromium_extra]))
    firefox_ids = list(dict.fromkeys([GECKO_ID, *firefox_extra]))
    launcher_dir = (launcher_dir or paths.data_dir()).absolute()
    chosen, skipped = targets(
        browser, user_data_dir=user_data_dir, home=home, os_name=os_name, launcher_dir=launcher_dir,
        present=present,
    )
    if any(t.registry for t in chosen) and registry is None and not dry_run:
        registry = default_registry()
        if registry is None:
            raise InstallError(
                "Registry rows can only be written on Windows. Run `webctx install` on the Windows machine.",
                fix="run webctx install on Windows",
            )
    launcher = launcher_dir / launcher_file(os_name)
    report = InstallReport(
        launcher=launcher, skipped=skipped, extension_id=primary, dry_run=dry_run,
        extension_ids=[*chromium_ids, *firefox_ids],
    )
    record = load_record(launcher_dir)
    if not dry_run:
        for d in _missing_dirs(launcher_dir):
            _add(record, "dirs", str(d))
        write_launcher(launcher_dir, python=python, os_name=os_name)
    for target in chosen:
        entry = BrowserReport(target.browser, target.manifest, note=target.note)
        path_in_manifest = launcher
        if target.wrapper is not None:
            path_in_manifest = target.wrapper
            entry.written.append(str(target.wrapper))
            if not dry_run:
                for d in _missing_dirs(target.wrapper.parent):
                    _add(record, "dirs", str(d))
                write_file(target.wrapper, flatpak_wrapper_text(launcher), 0o755)
                _add(record, "files", str(target.wrapper))
        ids = firefox_ids if target.kind == "firefox" else chromium_ids
        text = json.dumps(host_manifest(path_in_manifest, ids, target.kind), indent=2) + "\n"
        entry.written.append(str(target.manifest))
        if not dry_run:
            for d in _missing_dirs(target.folder):
                _add(record, "dirs", str(d))
            try:
                write_file(target.manifest, text, 0o644)
            finally:
                _save_record(launcher_dir, record)
            _add(record, "manifests", str(target.manifest))
        if target.registry is not None:
            entry.written.append(f"{target.registry} = {target.manifest}")
            if not dry_run:
                assert registry is not None
                try:
                    registry.set_default(target.registry, str(target.manifest))
                except OSError as exc:
                    _save_record(launcher_dir, record)
                    raise InstallError(
                        f"Cannot write the registry key {target.registry}: {exc}. Run `webctx install` "
                        "again as the user who runs the browser.",
                        browser=target.browser, path=target.registry, fix="webctx install",
                    ) from None
                _add(record, "registry", target.registry)
        if target.manifest not in report.written:
            report.written.append(target.manifest)
        report.browsers.append(entry)
        log.info("%s host manifest %s", "would write" if dry_run else "wrote", target.manifest)
    if not dry_run:
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
    os_name: OsName | None = None,
    registry: Registry | None = None,
    dry_run: bool = False,
) -> InstallReport:
    """Remove what `install` wrote for `browser`: its host manifests, registry values and Flatpak
    wrappers, the folders install created for them (when empty), and — once no manifest is left —
    the launcher, the install record and the Firefox build `webctx extension-path --firefox` made
    beside them. With "all", everything the record lists goes. Missing files
    are fine (idempotent); a manifest that is not ours is left alone. `dry_run` removes nothing and
    reports exactly what the real run would remove.
    Raises InstallError when a file exists but cannot be removed."""
    os_name = os_name or current_os()
    launcher_dir = (launcher_dir or paths.data_dir()).absolute()
    record = load_record(launcher_dir)
    report = InstallReport(dry_run=dry_run)
    if user_data_dir is not None or browser != "all":
        chosen, _ = targets(
            browser, user_data_dir=user_data_dir, home=home, os_name=os_name, launcher_dir=launcher_dir,
            present=lambda _row: True,
        )
    else:  # everything the record lists, plus every row (in case the record was lost)
        chosen, _ = targets("all", home=home, os_name=os_name, launcher_dir=launcher_dir,
                            present=lambda _row: True)
        chosen += [Target("recorded", Path(p)) for p in record["manifests"]]
    if any(t.registry for t in chosen) and registry is None:
        registry = default_registry()
    gone: set[Path] = set()  # what is (or, in a dry run, would be) removed so far

    def remove(path: Path) -> None:
        report.removed.append(str(path))
        gone.add(path)
        if not dry_run:
            _remove(path)

    def remove_if_empty(folder: Path) -> bool:
        if folder in gone or not folder.is_dir() or any(p not in gone for p in folder.iterdir()):
            return False
        report.removed.append(str(folder))
        gone.add(folder)
        if not dry_run:
            folder.rmdir()
        return True

    for target in chosen:
        if target.registry is not None and registry is not None:
            if registry.get_default(target.registry) == str(target.manifest):
                if target.registry not in report.removed:
                    report.removed.append(target.registry)
                if not dry_run:
                    registry.delete_key(target.registry)
            if target.registry in record["registry"]:
                record["registry"].remove(target.registry)
        if target.wrapper is not None and str(target.wrapper) in record["files"]:
            if target.wrapper.is_file():
                remove(target.wrapper)
            record["files"].remove(str(target.wrapper))
    for target in chosen:
        if str(target.manifest) in report.removed:
            continue  # two rows share one file (Opera and Chrome; Windows' shared manifests)
        # A dry run deletes no key, but `record` already lacks the ones the real run deletes.
        if target.registry is not None and _registry_still_points(target, registry, record):
            continue
        if target.manifest.is_file() and _is_our_manifest(target.manifest):
            remove(target.manifest)
        if str(target.manifest) in record["manifests"]:
            record["manifests"].remove(str(target.manifest))
    # The folders install created (innermost first) that are empty now, except the launcher's
    # own folders: they go with the launcher, below.
    for folder in sorted((Path(d) for d in record["dirs"]), key=lambda p: len(p.parts), reverse=True):
        if folder == launcher_dir or launcher_dir in folder.parents or folder in launcher_dir.parents:
            continue
        if remove_if_empty(folder):
            record["dirs"].remove(str(folder))
    if record["manifests"] or record["registry"]:
        if not dry_run:
            _save_record(launcher_dir, record)
        return report
    launchers = (launcher_dir / LAUNCHER_FILE, launcher_dir / WINDOWS_LAUNCHER_FILE)
    for leftover in (*launchers, _record_path(launcher_dir)):
        if leftover.exists():
            remove(leftover)
    firefox_build = launcher_dir / FIREFOX_BUILD_NAME
    if firefox_build.is_dir() and not firefox_build.is_symlink():
        report.removed.append(str(firefox_build))  # the copy `webctx extension-path --firefox` built
        gone.add(firefox_build)
        if not dry_run:
            shutil.rmtree(firefox_build, ignore_errors=True)
    for d in sorted((Path(d) for d in record["dirs"]), key=lambda p: len(p.parts), reverse=True):
        remove_if_empty(d)
    return report


def _registry_still_points(target: Target, registry: Registry | None, record: Record) -> bool:
    """On Windows several browsers share one manifest file: keep it while a recorded key names it."""
    if registry is None:
        return False
    return any(registry.get_default(key) == str(target.manifest) for key in record["registry"])


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
