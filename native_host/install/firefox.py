"""The Firefox build of the extension: the same files with a manifest.json made for Firefox.

The Firefox manifest is `extension/manifest.json` (Chromium) with the overlay
`manifests/extension-overlay.firefox.json` applied, so the two never drift apart (a test compares
them key by key). The overlay is a JSON merge patch whose placeholders `{gecko_id}` (GECKO_ID) and
`{service_worker}` (the Chromium manifest's `background.service_worker`) `firefox_manifest` fills;
manifests/README.md says what it changes and why:

- no `key` (Firefox ids come from `browser_specific_settings.gecko.id` = GECKO_ID, which the Firefox
  host manifest's `allowed_extensions` names);
- `background.scripts` (an ES-module event page) instead of `background.service_worker`, which
  Firefox's MV3 does not run (MDN "background");
- content scripts without `match_origin_as_fallback` (Chromium-only; `match_about_blank` stays);
- `browser_specific_settings.gecko.strict_min_version` 128.0 (storage.session, scripting and
  module background scripts are all there in ESR 128).

`build_firefox(dest)` copies the extension into `dest` with that manifest; load it in Firefox from
about:debugging → This Firefox → Load Temporary Add-on… → `dest/manifest.json`. Firefox asks the
user to grant `<all_urls>` host access in MV3 (Extensions → webctx → Permissions).
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any, Final

from native_host import paths
from native_host.install import templates
from native_host.install.manifests import GECKO_ID


def firefox_manifest(chromium: dict[str, Any]) -> dict[str, Any]:
    """The Firefox manifest for the Chromium `manifest.json` object `chromium` (not modified): the
    overlay in manifests/ filled and merged in. Raises InstallError when the overlay is missing, and
    KeyError when `chromium` has no `background.service_worker`."""
    overlay = templates.fill(
        templates.load(templates.FIREFOX_OVERLAY),
        {"gecko_id": GECKO_ID, "service_worker": chromium["background"]["service_worker"]},
    )
    manifest: dict[str, Any] = templates.merge_patch(copy.deepcopy(chromium), overlay)
    return manifest


def build_firefox(dest: Path, extension_dir: Path | None = None) -> Path:
    """Copy the extension (default `paths.extension_dir()`, without its `test/` folder) into `dest`
    (replaced if it exists) with the Firefox manifest; return `dest`. Raises OSError when copying
    fails, InstallError when the overlay in manifests/ is missing."""
    source = extension_dir or paths.extension_dir()
    chromium = json.loads((source / "manifest.json").read_text(encoding="utf-8"))
    manifest = firefox_manifest(chromium)
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("test", "manifest*.json"))
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    (dest / "manifest.json").write_text(text, encoding="utf-8")
    return dest


FIREFOX_BUILD_NAME: Final = "firefox-extension"
"""The Firefox build's folder name inside the data dir (`webctx uninstall` removes it too)."""


def firefox_build_dir() -> Path:
    """Where `webctx extension-path --firefox` puts the Firefox build: `<data dir>/firefox-extension`."""
    return paths.data_dir() / FIREFOX_BUILD_NAME
