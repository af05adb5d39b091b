"""Where webctx keeps things: the providers folder (design.md §3), logs, installed launchers.

Folders come from `platformdirs` except the providers folder, whose location the provider
protocol fixes per OS (design.md §3 table). `CONTEXT_PROVIDERS_DIR` overrides it (tests use it).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_NAME = "webctx"

REPO_ROOT = Path(__file__).resolve().parent.parent
"""The checkout this package was imported from (meaningful for an editable install)."""


def providers_dir() -> Path:
    """The per-user providers folder (design.md §3), not created here.

    Linux: `$XDG_RUNTIME_DIR/context-providers/`, else `~/.local/state/context-providers/`;
    macOS: `~/Library/Application Support/ContextProviders/`; Windows:
    `%LOCALAPPDATA%\\ContextProviders\\`. `CONTEXT_PROVIDERS_DIR` overrides all of them.
    """
    override = os.environ.get("CONTEXT_PROVIDERS_DIR")
    if override:
        return Path(override)
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "ContextProviders"
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(local) / "ContextProviders"
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return Path(runtime) / "context-providers"
    return Path.home() / ".local" / "state" / "context-providers"


def log_dir() -> Path:
    """Folder for webctx log files (`platformdirs.user_log_path`), not created here."""
    import platformdirs  # here, not at the top: the native host answers hello before importing it

    return platformdirs.user_log_path(APP_NAME, appauthor=False)


def data_dir() -> Path:
    """Folder for installed files such as the native-host launcher (`platformdirs.user_data_path`)."""
    import platformdirs

    return platformdirs.user_data_path(APP_NAME, appauthor=False)


BUNDLED = Path(__file__).resolve().parent / "_bundled"
"""Where the wheel puts the folders it ships beside the package (pyproject.toml `force-include`)."""


def _checkout_or_bundled(folder: str, marker: str) -> Path | None:
    """`<checkout>/<folder>` when it has the file `marker`, else the wheel's bundled copy when it
    has it, else None. The marker keeps an unrelated folder of that name from being taken."""
    for candidate in (REPO_ROOT / folder, BUNDLED / folder):
        if (candidate / marker).is_file():
            return candidate
    return None


def extension_dir() -> Path:
    """The unpacked extension: `extension/` of the checkout, else the copy bundled in the wheel.

    Raises FileNotFoundError if neither has a `manifest.json`.
    """
    found = _checkout_or_bundled("extension", "manifest.json")
    if found is None:
        raise FileNotFoundError("The webctx extension files are missing. Reinstall webctx.")
    return found


def manifests_dir() -> Path:
    """The host-manifest templates and the Firefox overlay (manifests/README.md): `manifests/` of
    the checkout, else the copy bundled in the wheel.

    Raises FileNotFoundError if neither has `host-manifest.chromium.json`.
    """
    found = _checkout_or_bundled("manifests", "host-manifest.chromium.json")
    if found is None:
        raise FileNotFoundError("The webctx manifest templates are missing. Reinstall webctx.")
    return found
