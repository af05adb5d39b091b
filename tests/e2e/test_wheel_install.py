"""Install from a built package, not the checkout: what a `pipx`/`uv tool` user gets.

Once per module: `python -m build` makes the sdist and, from the sdist, the wheel (hatchling, the
project's backend, without build isolation: the test extras carry it, and nothing is fetched); the
wheel goes into a fresh virtual environment in a temp folder outside the checkout, and its own
`webctx` console script runs there with HOME, the providers folder and the working directory in
that temp folder and no PYTHONPATH, so nothing can come from the checkout.

Dependencies: by default the fresh environment borrows the test environment's installed libraries
through a `.pth` line (plain paths in a `.pth` are added to sys.path but their own `.pth` files are
not run, so the checkout's editable-install hook never loads), the wheel itself goes in with
`--no-deps`, and `pip check` proves the wheel's requirements are met by what is there. With
WEBCTX_WHEEL_FULL_INSTALL=1 (the CI workflow sets it) pip resolves and installs every dependency
from the package index instead, as a user's install does (40 to 80 s more).
"""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import native_host
from native_host import paths
from native_host.install import pack
from tests.e2e.conftest import CHROMIUM

FULL_INSTALL = os.environ.get("WEBCTX_WHEEL_FULL_INSTALL") == "1"


@dataclass(frozen=True)
class Installed:
    """The built artifacts and the environment the wheel was installed into."""

    wheel: Path
    sdist: Path
    venv: Path
    home: Path

    @property
    def site_packages(self) -> Path:
        """The fresh environment's site-packages (POSIX layout: this test runs on Linux and macOS)."""
        [found] = self.venv.glob("lib/python3*/site-packages")
        return found.resolve()

    def webctx(self, *args: str, timeout_s: float = 120.0) -> subprocess.CompletedProcess[str]:
        """Run the installed `webctx ARGS` with HOME, the providers folder and cwd in the temp folder."""
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env |= {
            "HOME": str(self.home),
            "CONTEXT_PROVIDERS_DIR": str(self.home / "providers"),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_STATE_HOME": str(self.home / ".local" / "state"),
        }
        env.pop("XDG_RUNTIME_DIR", None)
        return subprocess.run(
            [str(self.venv / "bin" / "webctx"), *args], cwd=self.home, env=env,
            capture_output=True, text=True, timeout=timeout_s, check=False,
        )


def _run(*command: str | Path, cwd: Path | None = None, timeout_s: float = 300.0) -> None:
    done = subprocess.run(
        [str(c) for c in command], cwd=cwd, capture_output=True, text=True, timeout=timeout_s, check=False
    )
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    root = tmp_path_factory.mktemp("wheel")
    dist, venv, home = root / "dist", root / "venv", root / "home"
    home.mkdir()
    _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, paths.REPO_ROOT)
    [wheel] = dist.glob("webctx-*.whl")
    [sdist] = dist.glob("webctx-*.tar.gz")
    if FULL_INSTALL:
        _run(sys.executable, "-m", "venv", venv)
        _run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheel)
    else:
        _run(sys.executable, "-m", "venv", "--without-pip", venv)
        here = Installed(wheel, sdist, venv, home)
        borrowed = [p for p in site.getsitepackages() if Path(p).is_dir()]
        (here.site_packages / "_webctx_test_borrowed_deps.pth").write_text("\n".join(borrowed) + "\n")
        pip = (sys.executable, "-m", "pip", "--python", venv / "bin" / "python")
        _run(*pip, "install", "--quiet", "--no-deps", "--no-index", wheel)
        _run(*pip, "check")
    yield Installed(wheel, sdist, venv, home)


def test_the_wheel_carries_the_extension_and_the_sdist_the_sources(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as whl:
        names = set(whl.namelist())
    assert "native_host/_bundled/extension/manifest.json" in names
    assert "native_host/_bundled/manifests/host-manifest.chromium.json" in names
    assert "native_host/demo/demo.html" in names
    assert installed.wheel.name == f"webctx-{native_host.__version__}-py3-none-any.whl"
    with tarfile.open(installed.sdist) as tar:
        members = {m.split("/", 1)[1] for m in tar.getnames() if "/" in m}
    assert {"pyproject.toml", "extension/manifest.json", "manifests/host-manifest.chromium.json"} <= members


def test_the_installed_webctx_is_the_wheels_and_says_its_version(installed: Installed) -> None:
    done = installed.webctx("--version")
    assert done.returncode == 0, done.stderr
    assert native_host.__version__ in done.stdout


def test_extension_path_is_a_folder_inside_the_installed_package_with_a_valid_manifest(
    installed: Installed,
) -> None:
    done = installed.webctx("extension-path")
    assert done.returncode == 0, done.stderr
    folder = Path(done.stdout.strip())
    assert folder == installed.site_packages / "native_host" / "_bundled" / "extension"
    manifest: dict[str, Any] = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["manifest_version"] == 3 and manifest["version"] == native_host.__version__
    named = [manifest["background"]["service_worker"], manifest["action"]["default_popup"]]
    named += [js for entry in manifest["content_scripts"] for js in entry["js"]]
    assert all((folder / name).is_file() for name in named)
    checkout = json.loads((paths.extension_dir() / "manifest.json").read_text(encoding="utf-8"))
    assert manifest == checkout


def test_install_dry_run_for_every_browser_writes_nothing_and_names_this_python(installed: Installed) -> None:
    before = sorted(installed.home.rglob("*"))
    done = installed.webctx("install", "--dry-run", "--browser", "all", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["dryRun"] is True
    assert "chromium" in [b["browser"] for b in report["browsers"]], "this machine's Chromium is found"
    assert Path(report["launcher"]).is_relative_to(installed.home), "the launcher goes under HOME"
    assert sorted(installed.home.rglob("*")) == before, "a dry run writes nothing"
    text = installed.webctx("install", "--dry-run", "--browser", "all")
    assert text.returncode == 0 and "Dry run: nothing was written." in text.stdout
    assert str(installed.site_packages / "native_host" / "_bundled" / "extension") in text.stdout


def test_pack_from_the_wheel_gives_the_same_zips_as_the_checkout(
    installed: Installed, tmp_path: Path
) -> None:
    done = installed.webctx("pack", "--out", str(tmp_path / "wheel"), "--json")
    assert done.returncode == 0, done.stderr
    from_wheel = json.loads(done.stdout)
    from_checkout = pack.pack(tmp_path / "checkout")
    assert Path(from_wheel["chromium"]).read_bytes() == from_checkout.chromium.read_bytes()
    assert Path(from_wheel["firefox"]).read_bytes() == from_checkout.firefox.read_bytes()


def test_the_demo_runs_from_the_installed_package(installed: Installed) -> None:
    done = installed.webctx("demo", "--browser", CHROMIUM, timeout_s=180.0)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    assert "MCP tools: current, location, read_page, p1_get_passage\n" in done.stdout
    assert "Analytical Engine" in done.stdout
