"""`webctx doctor`: walk the chain browser → host manifest → launcher → interpreter → providers
folder → descriptor → endpoint, and report each link as a Check (`name, ok, message, fix`).

```
doctor.py            CHECKS (DATA: every check, its link, symptom and fix) and diagnose(), the walk
doctor_check.py      CheckInfo (a row of CHECKS) and Check (one verdict)
doctor_manifest.py   extension folder → host manifest → launcher and interpreter → Flatpak sandbox
doctor_providers.py  providers folder → stale descriptors
doctor_live.py       a running provider answers `current` (imports the reference host lazily)
doctor_versions.py   extension folder and running extension ↔ native host: one release, one protocol
doctor_readme.py     docs/troubleshooting.md's table, generated from CHECKS
```

`CHECKS` is DATA: every check name with what it means when it fails and the general fix; the
troubleshooting table in docs/troubleshooting.md is generated from it (`python -m
native_host.install.doctor --write-docs`, checked by a test). The failure classes found in the
wild (manifest in the wrong folder, relative `path`, missing execute bit, wrong
`allowed_origins`, stale descriptor, interpreter removed, providers folder mode 0755) each have a
test in tests/unit/install/test_doctor.py. Error strings are the ones Chromium 156 puts in
`chrome.runtime.lastError.message`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Final

from native_host import paths
from native_host.install.doctor_check import Check, CheckInfo, broken, ok
from native_host.install.doctor_live import check_live
from native_host.install.doctor_manifest import (
    check_extension,
    check_flatpak,
    check_launcher,
    check_manifest,
    install_command,
    other_manifests,
)
from native_host.install.doctor_providers import check_providers_dir, check_stale
from native_host.install.doctor_readme import troubleshooting_markdown, write_readme
from native_host.install.doctor_versions import check_versions
from native_host.install.locations import LOCATIONS, USER_DATA_DIR_FOLDER, Location, OsName, current_os
from native_host.install.manifests import MANIFEST_FILE, browser_present, target_for
from native_host.install.registry import Registry, default_registry

__all__ = [
    "CHECKS",
    "Check",
    "CheckInfo",
    "check_extension",
    "check_flatpak",
    "check_launcher",
    "check_live",
    "check_manifest",
    "check_providers_dir",
    "check_stale",
    "diagnose",
]

CHECKS: Final[tuple[CheckInfo, ...]] = (
    CheckInfo("extension.folder", "the unpacked extension folder and its key-derived id",
              "Load unpacked refuses the folder, or the id differs from the manifests' allowed_origins.",
              "Reinstall webctx; `webctx extension-path` prints the folder to load."),
    CheckInfo("manifest.present", "a host manifest in the folder this browser reads",
              'The popup says "Specified native messaging host not found." (a manifest in another '
              "browser's folder, or in ~/.config/chromium while the browser runs with --user-data-dir).",
              "`webctx install --browser <name>` (or `--user-data-dir DIR`)."),
    CheckInfo("manifest.json", "the host manifest parses as a JSON object",
              '"Specified native messaging host not found."',
              "`webctx install` rewrites it."),
    CheckInfo("manifest.keys",
              '`name`, `description`, `path`, `type` and `allowed_origins` (Firefox: `allowed_extensions`) '
              'are there, and `type` is "stdio"',
              '"Specified native messaging host not found."', "`webctx install` rewrites it."),
    CheckInfo("manifest.name", 'the manifest\'s `name` is "webctx.native_host"',
              '"Specified native messaging host not found."', "`webctx install` rewrites it."),
    CheckInfo("manifest.path", "`path` is absolute, exists and is executable",
              '"Specified native messaging host not found." (relative or missing path) or '
              '"Error when communicating with the native messaging host." (no execute bit; the '
              'browser logs `LaunchProcess: failed to execvp`).',
              "`webctx install`; or `chmod +x` the launcher."),
    CheckInfo("manifest.allowed", "`allowed_origins` (Firefox: `allowed_extensions`) holds the extension id",
              '"Access to the specified native messaging host is forbidden."',
              "`webctx install --extension-id <id>` with the id chrome://extensions shows."),
    CheckInfo("registry.key", r"Windows: HKCU\…\NativeMessagingHosts\webctx.native_host names the manifest",
              '"Specified native messaging host not found."', "`webctx install` on Windows."),
    CheckInfo("sandbox.flatpak",
              "a Flatpak browser may run `flatpak-spawn --host` (talk to org.freedesktop.Flatpak)",
              '"Native host has exited." from a Flatpak browser.',
              "`flatpak override --user --talk-name=org.freedesktop.Flatpak <app-id>`, then restart "
              "the browser."),
    CheckInfo("launcher.interpreter",
              "the launcher's pinned Python interpreter exists and imports native_host",
              '"Native host has exited." right after the browser starts the host.',
              "Reinstall webctx in that environment, then `webctx install` to pin the new interpreter."),
    CheckInfo("providers.folder", "the providers folder is yours, not a symlink, mode 0700",
              "The popup says connected, but no descriptor appears; the host log names the folder.",
              "`chmod 700 <folder>` when its mode is wrong; remove it when it is a symlink, not a "
              "folder or another user's (it is recreated); then restart the browser."),
    CheckInfo("providers.stale", "every descriptor's listener process is still running",
              "Desktop hosts list a provider that does not answer.",
              "Remove the file; a native host that starts removes stale descriptors too."),
    CheckInfo("provider.live", "a running browser's provider answers `current` with its descriptor's token",
              "`webctx context` says no provider, or the call fails.",
              "Start the browser with the extension loaded, switch the provider on in its popup, and "
              "check the popup says connected."),
    CheckInfo("versions", "extension and native host are one webctx release and protocol",
              'The popup says "Version mismatch: …".', "Update the side the message names."),
)
"""Every check `doctor` runs, in order (docs/troubleshooting.md's table is generated from this)."""


# ---------------------------------------------------------------------------------------------
# The walk


def diagnose(
    *,
    browser: str = "all",
    user_data_dir: Path | None = None,
    home: Path | None = None,
    os_name: OsName | None = None,
    extension_dir: Path | None = None,
    providers: Path | None = None,
    present: Callable[[Location], bool] | None = None,
    registry: Registry | None = None,
    launcher_dir: Path | None = None,
    live: bool = True,
) -> list[Check]:
    """Every check, in CHECKS order per link. Browsers checked: `browser`, or with "all" every row
    of this OS whose browser is found (`present`) or already has a manifest; `user_data_dir` checks
    `<dir>/NativeMessagingHosts` instead. Windows rows read `registry` (default: the real one on
    Windows) and the manifests in `launcher_dir`. `live=False` skips the provider call (tests)."""
    os_name = os_name or current_os()
    if registry is None and os_name == "windows":
        registry = default_registry()
    rows = [r for r in LOCATIONS if r.os == os_name]
    checks: list[Check] = []
    ext_check, ext_id = check_extension(extension_dir)
    checks.append(ext_check)
    is_present = present or (lambda row: browser_present(row, home))
    wanted: list[tuple[str, Path, str]] = []
    if user_data_dir is not None:
        udd_manifest = Path(user_data_dir) / USER_DATA_DIR_FOLDER / MANIFEST_FILE
        wanted.append(("user-data-dir", udd_manifest, "chromium"))
    else:
        for row in rows:
            target = target_for(row, home=home, launcher_dir=launcher_dir)
            chosen = browser == row.browser or (
                browser == "all" and (is_present(row) or target.manifest.is_file())
            )
            if not chosen or (row.browser, target.manifest, row.kind) in wanted:
                continue
            if target.registry is not None:
                registered = registry.get_default(target.registry) if registry is not None else None
                if registered != str(target.manifest):
                    message = f"{row.browser}: {target.registry} is {registered!r}, not {target.manifest}."
                    checks.append(broken("registry.key", message, install_command(row.browser)))
                    continue
                checks.append(ok("registry.key", f"{row.browser}: {target.registry} names the manifest."))
            wanted.append((row.browser, target.manifest, row.kind))
            if row.sandbox == "flatpak" and row.app_id:
                checks.append(check_flatpak(row.app_id, home))
    if not wanted:
        checks.append(broken("manifest.present", "No supported browser was found.",
                             "install one (e.g. `sudo apt install chromium`), then `webctx install`"))
    launchers: list[Path] = []
    for name, manifest, kind in wanted:
        others = other_manifests(rows, home, manifest)
        found, launcher = check_manifest(name, manifest, kind=kind, ext_id=ext_id, others=others)
        checks += found
        if launcher is not None and launcher not in launchers:
            launchers.append(launcher)
    checks += [check_launcher(launcher) for launcher in launchers]
    checks.append(check_providers_dir(providers))
    checks.append(check_stale(providers or paths.providers_dir()))
    if live:
        checks.append(check_live(providers))
    checks.append(check_versions(extension_dir, providers, live=live))
    return checks


if __name__ == "__main__":  # python -m native_host.install.doctor --write-docs
    import sys

    if sys.argv[1:] == ["--write-docs"]:
        write_readme(paths.REPO_ROOT / "docs" / "troubleshooting.md", CHECKS)
    else:
        sys.stdout.write(troubleshooting_markdown(CHECKS))
