"""Release artifacts: one version everywhere, and `webctx pack`'s two zips.

The zips are read back as a store would: manifest.json at the top, valid JSON, no development
`key`, every file the manifest names and every module a shipped script imports present, and no
test files. native_host/install/pack.py is the code under test.
"""

from __future__ import annotations

import json
import re
import shutil
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest

import native_host
from native_host import paths
from native_host.cli.main import main
from native_host.errors import InstallError
from native_host.install import firefox, manifests, pack, templates

IMPORT = re.compile(
    r"""^\s*(?:import|export)\b[^"']*?\bfrom\s*["'](\.[^"']+)["']|^\s*import\s*["'](\.[^"']+)["']""", re.M
)
"""A relative ES-module import or re-export in a shipped script (`from "./x.js"`, `import "./x.js"`)."""


def _chromium() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((paths.extension_dir() / "manifest.json").read_text(encoding="utf-8"))
    return data


def test_the_package_and_both_extension_manifests_have_one_version() -> None:
    project = tomllib.loads((paths.REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    overlay = templates.load(templates.FIREFOX_OVERLAY)
    versions = {
        "pyproject.toml": project["version"],
        "native_host.__version__": native_host.__version__,
        "extension/manifest.json": _chromium()["version"],
        "Firefox build (manifests/ overlay applied)": firefox.firefox_manifest(_chromium())["version"],
    }
    assert len(set(versions.values())) == 1, versions
    assert "version" not in overlay, "the Firefox version comes from extension/manifest.json, never twice"


def _named_files(manifest: dict[str, Any]) -> list[str]:
    """Every file a manifest names: background, popup, options, content scripts."""
    background = manifest["background"]
    named = [*background.get("scripts", []), *filter(None, [background.get("service_worker")])]
    named += [manifest["action"]["default_popup"], manifest["options_ui"]["page"]]
    named += [js for entry in manifest["content_scripts"] for js in entry["js"]]
    return named


def _read(zip_path: Path) -> tuple[dict[str, Any], dict[str, bytes]]:
    with zipfile.ZipFile(zip_path) as archive:
        assert archive.testzip() is None
        contents = {name: archive.read(name) for name in archive.namelist()}
    manifest: dict[str, Any] = json.loads(contents["manifest.json"].decode("utf-8"))
    return manifest, contents


def _check_release_zip(zip_path: Path) -> dict[str, Any]:
    """The checks every release zip passes; returns its manifest."""
    manifest, contents = _read(zip_path)
    assert manifest["manifest_version"] == 3
    assert manifest["version"] == native_host.__version__
    assert "key" not in manifest, "a store refuses a manifest with the development key"
    for name in _named_files(manifest):
        assert name in contents, f"{zip_path.name}: the manifest names {name}, which is missing"
    for name, data in contents.items():
        assert not name.startswith(("test/", "/")) and "/." not in name and not name.startswith(".")
        assert not name.endswith(".test.js"), name
        if name.endswith(".js"):
            for match in IMPORT.finditer(data.decode("utf-8")):
                target = (Path(name).parent / (match.group(1) or match.group(2))).as_posix()
                resolved = str(Path("/", target).resolve())[1:]
                assert resolved in contents, f"{name} imports {target}, which is not in {zip_path.name}"
    shipped = {p.as_posix() for p in pack.release_files(paths.extension_dir())}
    assert set(contents) == shipped | {"manifest.json"}
    return manifest


@pytest.fixture(scope="module")
def packed(tmp_path_factory: pytest.TempPathFactory) -> pack.Packed:
    return pack.pack(tmp_path_factory.mktemp("dist"))


def test_the_chromium_zip_is_the_extension_without_its_key_or_tests(packed: pack.Packed) -> None:
    assert packed.chromium.name == f"webctx-{native_host.__version__}-chromium.zip"
    manifest = _check_release_zip(packed.chromium)
    chromium = _chromium()
    assert manifest == {k: v for k, v in chromium.items() if k != "key"}
    assert list(manifest) == [k for k in chromium if k != "key"], "key order kept"


def test_the_firefox_zip_is_the_unsigned_firefox_build(packed: pack.Packed) -> None:
    assert packed.firefox.name == f"webctx-{native_host.__version__}-firefox.zip"
    manifest = _check_release_zip(packed.firefox)
    assert manifest == firefox.firefox_manifest(_chromium())
    assert manifest["browser_specific_settings"]["gecko"]["id"] == manifests.GECKO_ID
    _, contents = _read(packed.firefox)
    assert not any(name.startswith("META-INF/") for name in contents), "unsigned: AMO signs it"


def test_packing_twice_gives_the_same_bytes(packed: pack.Packed, tmp_path: Path) -> None:
    again = pack.pack(tmp_path)
    assert again.chromium.read_bytes() == packed.chromium.read_bytes()
    assert again.firefox.read_bytes() == packed.firefox.read_bytes()


def test_stray_files_in_the_extension_folder_do_not_ship(tmp_path: Path) -> None:
    source = tmp_path / "extension"
    shutil.copytree(paths.extension_dir(), source)
    (source / ".DS_Store").write_bytes(b"x")
    (source / "content" / "selection.test.js").write_text("// a test beside its module\n")
    (source / ".vscode").mkdir()
    (source / ".vscode" / "settings.json").write_text("{}")
    packed = pack.pack(tmp_path / "dist", source)
    _, contents = _read(packed.chromium)
    assert not {".DS_Store", "content/selection.test.js", ".vscode/settings.json"} & set(contents)
    assert "content/selection.js" in contents


def test_a_version_that_differs_from_the_package_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "extension"
    shutil.copytree(paths.extension_dir(), source)
    manifest = _chromium() | {"version": "9.9.9"}
    (source / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(InstallError, match=r"9\.9\.9.*webctx package is"):
        pack.pack(tmp_path / "dist", source)
    assert not (tmp_path / "dist").exists(), "nothing written"


def test_webctx_pack_writes_both_zips_and_says_how_to_allow_the_store_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["pack", "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "--extension-id" in out
    assert main(["pack", "--out", str(tmp_path / "out"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["version"] == native_host.__version__
    assert Path(data["chromium"]).is_file() and Path(data["firefox"]).is_file()
