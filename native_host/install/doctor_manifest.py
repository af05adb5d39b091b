"""The doctor's checks on what the browser starts: the extension folder and its id, the host
manifest (present, JSON, keys, name, `path`, allowed id), the launcher's pinned interpreter, and a
Flatpak browser's permission to start it outside its sandbox.

Each check is a plain function returning `Check`s (doctor.py runs them in `CHECKS` order). Error
strings quoted are the ones Chromium 156 puts in `chrome.runtime.lastError.message`
.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any, Final

from native_host import NATIVE_HOST_NAME, paths
from native_host.errors import InstallError
from native_host.install.doctor_check import Check, broken, ok
from native_host.install.locations import BROWSER_NAMES, Location
from native_host.install.manifests import GECKO_ID, MANIFEST_FILE, extension_id

IMPORT_TIMEOUT_S: Final = 20.0
"""How long `<interpreter> -c "import native_host"` may take, in seconds."""


def check_extension(extension_dir: Path | None = None) -> tuple[Check, str | None]:
    """The extension folder and the id derived from its key (or None when it cannot be derived)."""
    try:
        folder = extension_dir or paths.extension_dir()
        ext_id = extension_id(folder)
    except (FileNotFoundError, InstallError) as exc:
        return broken("extension.folder", str(exc), "reinstall webctx"), None
    return ok("extension.folder", f"Extension folder {folder}, id {ext_id}."), ext_id


def install_command(browser: str) -> str:
    """The `webctx install` command (in backticks) that rewrites the manifest `browser` reads;
    "user-data-dir" stands for a browser started with --user-data-dir."""
    if browser == "user-data-dir":
        return "`webctx install --user-data-dir DIR` (DIR = the browser's --user-data-dir)"
    return f"`webctx install --browser {browser}`"


def other_manifests(rows: list[Location], home: Path | None, wanted: Path) -> list[Path]:
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
    fix = install_command(browser)
    if not manifest.is_file():
        where = f" One is at {', '.join(map(str, others))}, which {label} does not read." if others else ""
        return [broken("manifest.present", f"{label}: no host manifest at {manifest}.{where}", fix)], None
    checks = [ok("manifest.present", f"{label}: host manifest at {manifest}.")]
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:
        bad = broken("manifest.json", f"{label}: {manifest} is not valid JSON ({exc}).", fix)
        return [*checks, bad], None
    checks.append(ok("manifest.json", f"{label}: the manifest is valid JSON."))
    checks.append(check_manifest_keys(label, data, kind=kind, fix=fix))
    if data.get("name") != NATIVE_HOST_NAME:
        checks.append(broken("manifest.name", f"{label}: the manifest's name is {data.get('name')!r}, "
                             f"not {NATIVE_HOST_NAME!r}.", fix))
    else:
        checks.append(ok("manifest.name", f"{label}: name is {NATIVE_HOST_NAME}."))
    launcher = _check_path(label, data.get("path"), fix, checks)
    wanted: str | None
    if kind == "firefox":
        allowed, wanted = data.get("allowed_extensions"), GECKO_ID
    else:
        allowed, wanted = data.get("allowed_origins"), f"chrome-extension://{ext_id}/" if ext_id else None
    if wanted is None:
        pass  # no id to compare with: extension.folder already failed
    elif isinstance(allowed, list) and wanted in allowed:
        checks.append(ok("manifest.allowed", f"{label}: {wanted} is allowed."))
    else:
        checks.append(broken("manifest.allowed", f"{label}: the manifest allows {allowed!r}, not {wanted}.",
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
        return broken("manifest.keys", f"{label}: the manifest lacks {', '.join(missing)}.", fix)
    if data["type"] != "stdio":
        return broken("manifest.keys", f'{label}: the manifest\'s type is {data["type"]!r}, but browsers '
                      'only start hosts whose type is "stdio".', fix)
    return ok("manifest.keys", f'{label}: every required key is there and type is "stdio".')


def _check_path(label: str, value: Any, fix: str, checks: list[Check]) -> Path | None:
    # Appends the one `manifest.path` verdict; returns the launcher only when the browser can run it.
    if not isinstance(value, str) or not os.path.isabs(value):
        checks.append(broken("manifest.path", f"{label}: path {value!r} is not absolute; Chromium looks "
                             "for a relative path beside the manifest and reports the host not found.", fix))
        return None
    path = Path(value)
    if not path.is_file():
        checks.append(broken("manifest.path", f"{label}: path {path} does not exist.", fix))
        return None
    if not os.access(path, os.X_OK):
        checks.append(broken("manifest.path", f"{label}: {path} is not executable, so the browser "
                             "cannot start it.", f"chmod +x {shlex.quote(str(path))}, or {fix}"))
        return None
    checks.append(ok("manifest.path", f"{label}: path {path} is absolute and executable."))
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
        return broken("launcher.interpreter", f"{launcher} is not a launcher webctx wrote.",
                      "`webctx install`")
    interpreter, pythonpath = found
    if not os.access(interpreter, os.X_OK):
        return broken("launcher.interpreter", f"The launcher {launcher} runs {interpreter}, which no "
                      "longer exists (a removed virtualenv or Python).", fix)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    try:
        done = subprocess.run([interpreter, "-c", "import native_host"], capture_output=True, text=True,
                              env=env, timeout=IMPORT_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return broken("launcher.interpreter", f"Running {interpreter} failed ({exc}).", fix)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return broken("launcher.interpreter", f"{interpreter} cannot import native_host ({last}).", fix)
    return ok("launcher.interpreter", f"The launcher runs {interpreter}, which imports native_host.")


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
                return ok("sandbox.flatpak", message)
    return broken("sandbox.flatpak", f"The Flatpak browser {app_id} may not start programs outside its "
                  "sandbox, so it cannot start the webctx host.",
                  f"flatpak override --user --talk-name=org.freedesktop.Flatpak {app_id}")
