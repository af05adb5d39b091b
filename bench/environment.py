"""What a bench run sets up around itself: the user's folders in a temp folder, progress lines on
stderr, and the load average it ran under.

A bench must not touch the real user's files: HOME, XDG_* and CONTEXT_PROVIDERS_DIR point into a
temp folder, as tests/conftest.py does for the tests; the browser, the native host and the floor
server inherit them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Final

XDG_FOLDERS: Final = (
    ("XDG_CONFIG_HOME", ".config"),
    ("XDG_DATA_HOME", ".local/share"),
    ("XDG_STATE_HOME", ".local/state"),
    ("XDG_CACHE_HOME", ".cache"),
)
"""XDG variable → its folder under HOME (the XDG Base Directory defaults)."""


def isolated_env(root: Path) -> dict[str, str]:
    """`os.environ` with HOME at `root/home` (created), XDG_* under it, CONTEXT_PROVIDERS_DIR at
    `root/providers` (not created: the native host makes it) and no XDG_RUNTIME_DIR. For a child
    process; `isolate` applies it to this one."""
    home = root / "home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(home), "CONTEXT_PROVIDERS_DIR": str(root / "providers")}
    env.update((name, str(home / sub)) for name, sub in XDG_FOLDERS)
    env.pop("XDG_RUNTIME_DIR", None)
    return env


def isolate(root: Path) -> None:
    """Point this process's HOME, XDG_* and CONTEXT_PROVIDERS_DIR into `root` (see isolated_env);
    everything it starts afterwards inherits them."""
    env = isolated_env(root)
    os.environ.update(env)
    os.environ.pop("XDG_RUNTIME_DIR", None)


def progress(line: str) -> None:
    """One progress line on stderr, `bench: <line>` (stdout is for the results)."""
    print(f"bench: {line}", file=sys.stderr, flush=True)


def load_average() -> list[float]:
    """The 1-, 5- and 15-minute load averages, rounded to 0.01: above the CPU count, other work
    competed with the measurement."""
    return [round(x, 2) for x in os.getloadavg()]
