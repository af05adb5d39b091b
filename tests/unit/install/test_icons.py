"""The extension's icons: every icon a manifest names exists, is a PNG of the size
it is named for, and is what scripts/icons.py makes from the SVG source; the Firefox build (the
same manifest with the overlay, native_host/install/firefox.py) names them too and carries the files.
tests/e2e/test_popup_site.py checks the toolbar icon follows the state in a real browser."""

from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

from native_host import paths
from native_host.install import firefox

REPO = Path(__file__).resolve().parents[3]
SIZES = (16, 32, 48, 128)


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk; AssertionError when the file is no PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", f"{path} is not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def named_icons(manifest: dict[str, Any]) -> dict[str, str]:
    """size → path for every icon the manifest names (`icons`, `action.default_icon`)."""
    named: dict[str, str] = {}
    for table in (manifest.get("icons", {}), manifest.get("action", {}).get("default_icon", {})):
        assert isinstance(table, dict), "icons are given per size"
        named.update({f"{size}:{path}": path for size, path in table.items()})
    return named


def check_icons(manifest: dict[str, Any], root: Path) -> None:
    icons = manifest.get("icons", {})
    assert sorted(int(s) for s in icons) == list(SIZES), "the manifest names an icon at 16, 32, 48 and 128 px"
    assert manifest.get("action", {}).get("default_icon"), "the toolbar button has an icon"
    for key, rel in named_icons(manifest).items():
        size = int(key.split(":", 1)[0])
        assert png_size(root / rel) == (size, size), f"{rel} is not {size} by {size}"


def test_the_chromium_manifest_names_an_icon_at_every_size_and_each_exists() -> None:
    root = paths.extension_dir()
    check_icons(json.loads((root / "manifest.json").read_text(encoding="utf-8")), root)


def test_the_firefox_build_names_the_same_icons_and_carries_them(tmp_path: Path) -> None:
    build = firefox.build_firefox(tmp_path / "ff")
    manifest = json.loads((build / "manifest.json").read_text(encoding="utf-8"))
    check_icons(manifest, build)


def test_every_state_icon_the_service_worker_sets_exists() -> None:
    """action_icon.js names `popup/icons/<variant>-<size>.png` for ACTION_ICON_SIZES."""
    root = paths.extension_dir()
    source = (root / "service_worker" / "action_icon.js").read_text(encoding="utf-8")
    sizes_match = re.search(r"ACTION_ICON_SIZES = Object\.freeze\(\[([\d, ]+)\]\)", source)
    assert sizes_match
    for variant in ("icon", "icon-off", "icon-broken"):
        assert f'"{variant}"' in source
        for size in (int(s) for s in sizes_match.group(1).split(",")):
            assert png_size(root / "popup" / "icons" / f"{variant}-{size}.png") == (size, size)


def test_the_checked_in_pngs_are_what_the_script_makes_from_the_svgs() -> None:
    run = subprocess.run([sys.executable, str(REPO / "scripts" / "icons.py"), "--check"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
