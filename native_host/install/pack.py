"""Release artifacts of the extension: a store-ready zip for Chromium-family browsers and
an unsigned Firefox build, from the same files `webctx extension-path` serves.

```
pack(out)            → Packed(chromium, firefox, version): both zips written into `out`
store_manifest(m)    the Chromium manifest without the development `key` (a store assigns its own id)
release_files(src)   the files that ship: not `test/`, not `*.test.js`, no dotfiles, not manifest.json
check_versions(m)    the extension's `version` equals the Python package's (`native_host.__version__`)
```

Why no `key`: the Chrome Web Store and Edge Add-ons refuse an upload whose manifest has one and
give the item their own id, so a store install needs `webctx install --extension-id <store id>`
(docs/internals/native-host.md "Release"). Firefox's build is `install/firefox.py`'s manifest (no `key`
either; the id is `browser_specific_settings.gecko.id`), left unsigned: addons.mozilla.org signs
what is uploaded to it.

The zips are reproducible: entries sorted, every timestamp 1980-01-01 00:00, mode 0644, so the same
files give the same bytes (a release can be rebuilt and compared).
"""

from __future__ import annotations

import copy
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from native_host import __version__, paths
from native_host.errors import InstallError
from native_host.install.firefox import firefox_manifest

ZIP_TIME: Final = (1980, 1, 1, 0, 0, 0)
"""Every entry's timestamp (the earliest a zip can hold), so builds of the same files are identical."""

EXCLUDED_DIRS: Final = frozenset({"test", "node_modules"})
"""Folders of the extension that never ship: the `node --test` unit tests and tooling."""


@dataclass(frozen=True)
class Packed:
    """What `pack` wrote: the Chromium store zip, the unsigned Firefox zip, the version in both."""

    chromium: Path
    firefox: Path
    version: str

    def to_json(self) -> dict[str, str]:
        """`{chromium, firefox, version}` (paths as strings)."""
        return {"chromium": str(self.chromium), "firefox": str(self.firefox), "version": self.version}


def store_manifest(chromium: dict[str, Any]) -> dict[str, Any]:
    """A copy of the Chromium manifest `chromium` without `key` (stores refuse it and assign their
    own id); everything else, key order included, as it is."""
    manifest = copy.deepcopy(chromium)
    manifest.pop("key", None)
    return manifest


def release_files(source: Path) -> list[Path]:
    """The files of the extension folder `source` that ship in a release, relative and sorted:
    everything except `manifest.json` (written by the packer), the folders in EXCLUDED_DIRS,
    `*.test.js`, and dotfiles or dot-folders (editor and OS leftovers)."""
    found: list[Path] = []
    for path in source.rglob("*"):
        relative = path.relative_to(source)
        parts = relative.parts
        if not path.is_file() or relative == Path("manifest.json"):
            continue
        if any(p.startswith(".") for p in parts) or EXCLUDED_DIRS.intersection(parts[:-1]):
            continue
        if relative.name.endswith(".test.js"):
            continue
        found.append(relative)
    return sorted(found, key=lambda p: p.as_posix())


def check_versions(chromium: dict[str, Any]) -> str:
    """The release version; raises InstallError when extension/manifest.json's `version` differs
    from the Python package's `native_host.__version__` (one version for every artifact)."""
    version = chromium.get("version")
    if version != __version__:
        raise InstallError(
            f"extension/manifest.json has version {version!r} but the webctx package is {__version__}; "
            "set both (and pyproject.toml) to the same version before packing.",
            fix="one version in pyproject.toml, native_host/__init__.py and extension/manifest.json",
        )
    return __version__


def _write_zip(target: Path, source: Path, files: list[Path], manifest: dict[str, Any]) -> None:
    """Write `manifest` (as manifest.json) and `files` from `source` into the zip `target`, reproducibly."""
    entries: list[tuple[str, bytes]] = [
        ("manifest.json", (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    ]
    entries += [(f.as_posix(), (source / f).read_bytes()) for f in files]
    temp = target.with_name(f".{target.name}.tmp")
    with zipfile.ZipFile(temp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    temp.replace(target)


def pack(out: Path, extension_dir: Path | None = None) -> Packed:
    """Write `webctx-<version>-chromium.zip` and `webctx-<version>-firefox.zip` into `out` (created
    if missing; existing zips of that version replaced) from `extension_dir` (default
    `paths.extension_dir()`). Raises InstallError when the versions differ or the overlay is
    missing, OSError when a file cannot be read or written."""
    source = extension_dir or paths.extension_dir()
    chromium = json.loads((source / "manifest.json").read_text(encoding="utf-8"))
    version = check_versions(chromium)
    files = release_files(source)
    out.mkdir(parents=True, exist_ok=True)
    packed = Packed(
        chromium=out / f"webctx-{version}-chromium.zip",
        firefox=out / f"webctx-{version}-firefox.zip",
        version=version,
    )
    _write_zip(packed.chromium, source, files, store_manifest(chromium))
    _write_zip(packed.firefox, source, files, firefox_manifest(chromium))
    return packed
