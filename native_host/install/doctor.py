"""`webctx doctor`: walk the chain browser → host manifest → launcher → interpreter → providers
folder → descriptor → endpoint, and report each link as a Check (`name, ok, message, fix`).

`CHECKS` is DATA: every check name with what it means when it fails and the general fix; the
README's troubleshooting section is generated from it (`troubleshooting_markdown`, checked by a
test). The failure classes found in the wild (manifest in the wrong folder, relative `path`, missing
execute bit, wrong `allowed_origins`, stale descriptor, interpreter removed, providers folder mode
0755) each have a test in tests/unit/install/test_doctor.py. Error strings are the ones Chromium 156 puts in
`chrome.runtime.lastError.message` (research/chromium-recipe.md §4).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import stat
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from native_host import NATIVE_HOST_NAME, paths
from native_host.errors import InstallError, ProvidersFolderError, WebctxError
from native_host.install.locations import (
    BROWSER_NAMES,
    LOCATIONS,
    USER_DATA_DIR_FOLDER,
    Location,
    OsName,
    current_os,
)
from native_host.install.manifests import GECKO_ID, MANIFEST_FILE, browser_present, extension_id, target_for
from native_host.install.registry import Registry, default_registry
from native_host.protocol.descriptor import Descriptor
from native_host.protocol.processes import process_alive
from native_host.protocol.providers_folder import check_providers_folder

IMPORT_TIMEOUT_S: Final = 20.0
"""How long `<interpreter> -c "import native_host"` may take, in seconds."""

CURRENT_TIMEOUT_S: Final = 5.0
"""How long the live provider may take to connect and answer `current`, in seconds."""


@dataclass(frozen=True)
class CheckInfo:
    """One kind of check: its `name`, the link it tests, what its failure looks like to the user
    (the browser's error, when there is one), and the general fix."""

    name: str
    link: str
    symptom: str
    fix: str


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
)
"""Every check `doctor` runs, in order (README "Troubleshooting" is generated from this)."""


@dataclass(frozen=True)
class Check:
    """One link's verdict: `name` (a CHECKS name), `ok`, a sentence, and the fix when broken."""

    name: str
    ok: bool
    message: str
    fix: str = ""

    def to_json(self) -> dict[str, Any]:
        """`{name, ok, message, fix}`."""
        return {"name": self.name, "ok": self.ok, "message": self.message, "fix": self.fix}


def _ok(name: str, message: str) -> Check:
    return Check(name, True, message)


def _broken(name: str, message: str, fix: str) -> Check:
    return Check(name, False, f"{message} Fix: {fix}", fix)


# ---------------------------------------------------------------------------------------------
# The links


def check_extension(extension_dir: Path | None = None) -> tuple[Check, str | None]:
    """The extension folder and the id derived from its key (or None when it cannot be derived)."""
    try:
        folder = extension_dir or paths.extension_dir()
        ext_id = extension_id(folder)
    except (FileNotFoundError, InstallError) as exc:
        return _broken("extension.folder", str(exc), "reinstall webctx"), None
    return _ok("extension.folder", f"Extension folder {folder}, id {ext_id}."), ext_id


def _install_cmd(browser: str) -> str:
    if browser == "user-data-dir":
        return "`webctx install --user-data-dir DIR` (DIR = the browser's --user-data-dir)"
    return f"`webctx install --browser {browser}`"


def _other_manifests(rows: list[Location], home: Path | None, wanted: Path) -> list[Path]:
    """Our manifest file found in other known folders (another browser's, a sandbox's, a mistyped
    one): evidence for "manifest in the wrong folder"."""
    candidates: list[Path] = []
    for row in rows:
        folder = row.path(home)
        if folder is not None:
            candidates.append(folder / MANIFEST_FILE)
    base = home or Path.home()
    candidates += [base / ".config" / "NativeMessagingHosts" / MANIFEST_FILE,
                   base / ".config" / "chromium" / "native-messaging-hosts" / MANIFEST_FILE,
                   base / ".config" / "google-chrome" / "native-messaging-hosts" / MANIFEST_FILE]
    return [p for p in dict.fromkeys(candidates) if p != wanted and p.is_file()]


def check_manifest(
    browser: str, manifest: Path, *, kind: str, ext_id: str | None, others: list[Path]
) -> tuple[list[Check], Path | None]:
    """The manifest checks for one browser; returns the checks and the launcher path when valid."""
    label = BROWSER_NAMES.get(browser, "The browser started with --user-data-dir")
    fix = _install_cmd(browser)
    if not manifest.is_file():
        where = f" One is at {', '.join(map(str, others))}, which {label} does not read." if others else ""
        return [_broken("manifest.present", f"{label}: no host manifest at {manifest}.{where}", fix)], None
    checks = [_ok("manifest.present", f"{label}: host manifest at {manifest}.")]
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:
        bad = _broken("manifest.json", f"{label}: {manifest} is not valid JSON ({exc}).", fix)
        return [*checks, bad], None
    checks.append(_ok("manifest.json", f"{label}: the manifest is valid JSON."))
    checks.append(check_manifest_keys(label, data, kind=kind, fix=fix))
    if data.get("name") != NATIVE_HOST_NAME:
        checks.append(_broken("manifest.name", f"{label}: the manifest's name is {data.get('name')!r}, "
                              f"not {NATIVE_HOST_NAME!r}.", fix))
    else:
        checks.append(_ok("manifest.name", f"{label}: name is {NATIVE_HOST_NAME}."))
    launcher = _check_path(label, data.get("path"), fix, checks)
    wanted: str | None
    if kind == "firefox":
        allowed, wanted = data.get("allowed_extensions"), GECKO_ID
    else:
        allowed, wanted = data.get("allowed_origins"), f"chrome-extension://{ext_id}/" if ext_id else None
    if wanted is None:
        pass  # no id to compare with: extension.folder already failed
    elif isinstance(allowed, list) and wanted in allowed:
        checks.append(_ok("manifest.allowed", f"{label}: {wanted} is allowed."))
    else:
        checks.append(_broken("manifest.allowed", f"{label}: the manifest allows {allowed!r}, not {wanted}.",
                              f"{fix}, adding `--extension-id <id>` for a store-published id"))
    return checks, launcher


REQUIRED_KEYS: Final = ("name", "description", "path", "type")
"""Keys every host manifest must have (Chromium's NativeMessagingHostManifest::Parse, Firefox's
native manifests page), besides `allowed_origins` (Chromium) / `allowed_extensions` (Firefox)."""


def check_manifest_keys(label: str, data: dict[str, Any], *, kind: str, fix: str) -> Check:
    """`manifest.keys`: every required key is there and `type` is "stdio" (the only type browsers
    accept; anything else makes Chromium report "Specified native messaging host not found.")."""
    allowed = "allowed_extensions" if kind == "firefox" else "allowed_origins"
    missing = [key for key in (*REQUIRED_KEYS, allowed) if key not in data]
    if missing:
        return _broken("manifest.keys", f"{label}: the manifest lacks {', '.join(missing)}.", fix)
    if data["type"] != "stdio":
        return _broken("manifest.keys", f'{label}: the manifest\'s type is {data["type"]!r}, but browsers '
                       'only start hosts whose type is "stdio".', fix)
    return _ok("manifest.keys", f'{label}: every required key is there and type is "stdio".')


def _check_path(label: str, value: Any, fix: str, checks: list[Check]) -> Path | None:
    if not isinstance(value, str) or not os.path.isabs(value):
        checks.append(_broken("manifest.path", f"{label}: path {value!r} is not absolute; Chromium looks "
                              "for a relative path beside the manifest and reports the host not found.", fix))
        return None
    path = Path(value)
    if not path.is_file():
        checks.append(_broken("manifest.path", f"{label}: path {path} does not exist.", fix))
        return None
    if not os.access(path, os.X_OK):
        checks.append(_broken("manifest.path", f"{label}: {path} is not executable, so the browser "
                              "cannot start it.", f"chmod +x {shlex.quote(str(path))}, or {fix}"))
        return None
    checks.append(_ok("manifest.path", f"{label}: path {path} is absolute and executable."))
    return path


def launcher_interpreter(launcher: Path) -> tuple[str, str | None] | None:
    """(interpreter, PYTHONPATH folder) named by a launcher `install` wrote (a `#!/bin/sh` script or
    a Windows `.cmd`); follows a Flatpak wrapper to the real launcher. None when the file is not a
    webctx launcher."""
    try:
        text = launcher.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    interpreter = pythonpath = None
    for line in text.splitlines():
        if line.startswith("PYTHONPATH="):
            pythonpath = shlex.split(line.split("=", 1)[1].split("${", 1)[0])[0]
        elif line.startswith('set "PYTHONPATH='):  # .cmd: set "PYTHONPATH=<root>;%PYTHONPATH%"
            pythonpath = line[len('set "PYTHONPATH='):].split(";%PYTHONPATH%", 1)[0]
        elif line.startswith('"') and " -m native_host" in line:  # .cmd: "<python>" -m native_host %*
            interpreter = line[1:].split('"', 1)[0]
        elif line.startswith("exec "):
            words = shlex.split(line)
            if words[1:3] == ["flatpak-spawn", "--host"] and len(words) > 3:
                return launcher_interpreter(Path(words[3]))
            interpreter = words[1] if len(words) > 1 else None
    return (interpreter, pythonpath) if interpreter else None


def check_launcher(launcher: Path) -> Check:
    """The launcher's pinned interpreter exists and imports `native_host`."""
    fix = "reinstall webctx, then run `webctx install` again"
    found = launcher_interpreter(launcher)
    if found is None:
        return _broken("launcher.interpreter", f"{launcher} is not a launcher webctx wrote.",
                       "`webctx install`")
    interpreter, pythonpath = found
    if not os.access(interpreter, os.X_OK):
        return _broken("launcher.interpreter", f"The launcher {launcher} runs {interpreter}, which no "
                       "longer exists (a removed virtualenv or Python).", fix)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    try:
        done = subprocess.run([interpreter, "-c", "import native_host"], capture_output=True, text=True,
                              env=env, timeout=IMPORT_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return _broken("launcher.interpreter", f"Running {interpreter} failed ({exc}).", fix)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return _broken("launcher.interpreter", f"{interpreter} cannot import native_host ({last}).", fix)
    return _ok("launcher.interpreter", f"The launcher runs {interpreter}, which imports native_host.")


FLATPAK_TALK: Final = "org.freedesktop.Flatpak=talk"
"""The line `flatpak override --talk-name=org.freedesktop.Flatpak` writes under [Session Bus Policy]."""


def check_flatpak(app_id: str, home: Path | None = None) -> Check:
    """The Flatpak app may talk to org.freedesktop.Flatpak (needed by `flatpak-spawn --host`):
    its user override (`~/.local/share/flatpak/overrides/<app-id>`) or the system one says so."""
    base = home or Path.home()
    places = (base / ".local/share/flatpak/overrides" / app_id, Path("/var/lib/flatpak/overrides") / app_id)
    for overrides in places:
        with contextlib.suppress(OSError):
            if FLATPAK_TALK in overrides.read_text(encoding="utf-8").replace(" ", ""):
                message = f"{app_id} may start the host outside its sandbox ({overrides})."
                return _ok("sandbox.flatpak", message)
    return _broken("sandbox.flatpak", f"The Flatpak browser {app_id} may not start programs outside its "
                   "sandbox, so it cannot start the webctx host.",
                   f"flatpak override --user --talk-name=org.freedesktop.Flatpak {app_id}")


def check_providers_dir(folder: Path | None = None) -> Check:
    """The providers folder is safe (SPEC §3), or missing (created 0700 on first use)."""
    folder = folder or paths.providers_dir()
    if not os.path.lexists(folder):
        return _ok("providers.folder", f"The providers folder {folder} does not exist yet; the native "
                   "host creates it (mode 0700).")
    try:
        check_providers_folder(folder)
    except ProvidersFolderError as exc:
        message, fix = _providers_folder_problem(folder, str(exc))
        return _broken("providers.folder", message, fix)
    return _ok("providers.folder", f"The providers folder {folder} is yours and private (0700).")


def _providers_folder_problem(folder: Path, fallback: str) -> tuple[str, str]:
    """(what is wrong, the one fix) for an unsafe providers folder, from its lstat; `fallback` (the
    ProvidersFolderError sentence) when it cannot be inspected. The native host recreates a
    removed folder with mode 0700 (SPEC §3)."""
    quoted = shlex.quote(str(folder))
    try:
        info = folder.lstat()
    except OSError:
        return fallback, "check the folder's path and permissions, then restart the browser"
    if stat.S_ISLNK(info.st_mode):
        return (f"The providers folder {folder} is a symlink, which the native host refuses.",
                f"rm {quoted} (removes the link only; the folder is recreated), then restart the browser")
    if not stat.S_ISDIR(info.st_mode):
        return (f"The providers folder {folder} is not a folder.",
                f"rm {quoted} (it is recreated as a folder), then restart the browser")
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        return (f"The providers folder {folder} belongs to user id {info.st_uid}, not to you.",
                f"remove it as that user or root (`rm -r {quoted}`; it is recreated), then restart "
                "the browser")
    mode = stat.S_IMODE(info.st_mode)
    return (f"The providers folder {folder} is accessible to other users (mode {mode:o}).",
            f"chmod 700 {quoted}, then restart the browser")


def _descriptors(folder: Path) -> Iterator[tuple[Path, Descriptor]]:
    try:
        files = sorted(p for p in folder.iterdir() if p.suffix == ".json" and not p.name.startswith("."))
    except OSError:
        return
    for path in files:
        try:
            yield path, Descriptor.model_validate_json(path.read_bytes())
        except (OSError, ValueError):
            continue


def check_stale(folder: Path | None = None) -> Check:
    """Descriptors whose listener (`listenerPid`, else `pid`) is no longer running."""
    folder = folder or paths.providers_dir()
    stale = [path for path, d in _descriptors(folder) if not process_alive(d.listener_pid or d.pid)]
    if stale:
        names = " ".join(shlex.quote(str(p)) for p in stale)
        return _broken("providers.stale", f"{len(stale)} descriptor(s) name a listener that is gone: "
                       f"{', '.join(p.name for p in stale)}.", f"rm {names}")
    return _ok("providers.stale", "No stale descriptors.")


def check_live(folder: Path | None = None, *, timeout_s: float = CURRENT_TIMEOUT_S) -> Check:
    """A running provider answers `current` through the reference host (real HTTP, its token)."""
    from native_host.host import HostClient, discover  # imports mcp: only when needed

    folder = folder or paths.providers_dir()
    usable = [info for info in discover(folder) if info.usable and info.descriptor is not None]
    if not usable:
        return _broken("provider.live", "No running browser has a live webctx provider.",
                       "start the browser with the extension loaded, switch the provider on in its popup, "
                       "and check the popup says connected")
    client = HostClient(folder=folder, timeout_s=timeout_s)
    for info in usable:
        d = info.descriptor
        assert d is not None
        try:
            asyncio.run(client.current(d.pid))
        except WebctxError as exc:
            return _broken("provider.live", f"{d.name} (pid {d.pid}) did not answer current: {exc}",
                           "reload the extension in chrome://extensions, then run `webctx doctor` again")
    names = ", ".join(f"{i.descriptor.name} (pid {i.descriptor.pid})" for i in usable if i.descriptor)
    return _ok("provider.live", f"{names} answered current with the descriptor's token.")


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
                    checks.append(_broken("registry.key", message, _install_cmd(row.browser)))
                    continue
                checks.append(_ok("registry.key", f"{row.browser}: {target.registry} names the manifest."))
            wanted.append((row.browser, target.manifest, row.kind))
            if row.sandbox == "flatpak" and row.app_id:
                checks.append(check_flatpak(row.app_id, home))
    if not wanted:
        checks.append(_broken("manifest.present", "No supported browser was found.",
                              "install one (e.g. `sudo apt install chromium`), then `webctx install`"))
    launchers: list[Path] = []
    for name, manifest, kind in wanted:
        others = _other_manifests(rows, home, manifest)
        found, launcher = check_manifest(name, manifest, kind=kind, ext_id=ext_id, others=others)
        checks += found
        if launcher is not None and launcher not in launchers:
            launchers.append(launcher)
    checks += [check_launcher(launcher) for launcher in launchers]
    checks.append(check_providers_dir(providers))
    checks.append(check_stale(providers or paths.providers_dir()))
    if live:
        checks.append(check_live(providers))
    return checks


def troubleshooting_markdown() -> str:
    """The README's troubleshooting section body, generated from CHECKS."""
    lines = [
        "Run `webctx doctor`: it walks every link below, in this order, and prints the broken ones with",
        "their fix (`--json` for programs; exit status 1 when a link is broken).",
        "",
        "| check | link | when it is broken | fix |",
        "|---|---|---|---|",
    ]
    for info in CHECKS:
        cells = [f"`{info.name}`", info.link, info.symptom, info.fix]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


README_START: Final = "<!-- troubleshooting: generated from native_host/install/doctor.py CHECKS -->"
README_END: Final = "<!-- end of troubleshooting -->"


def write_readme(readme: Path) -> bool:
    """Replace the text between README_START and README_END in `readme` with the generated section;
    return True when the file changed. Raises ValueError when the markers are missing."""
    text = readme.read_text(encoding="utf-8")
    if README_START not in text or README_END not in text:
        raise ValueError(f"{readme} lacks the markers {README_START!r} … {README_END!r}")
    head, rest = text.split(README_START, 1)
    tail = rest.split(README_END, 1)[1]
    new = f"{head}{README_START}\n{troubleshooting_markdown()}{README_END}{tail}"
    if new != text:
        readme.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":  # python -m native_host.install.doctor --write-readme
    import sys

    if sys.argv[1:] == ["--write-readme"]:
        write_readme(paths.REPO_ROOT / "README.md")
    else:
        sys.stdout.write(troubleshooting_markdown())
