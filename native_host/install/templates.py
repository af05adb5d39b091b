"""Reading `manifests/`: the host-manifest templates and the Firefox overlay, with their
placeholders filled (manifests/README.md lists the files and what fills each placeholder).

```
load(name)                  the JSON of `paths.manifests_dir() / name`
fill(template, values)      every "{placeholder}" in a string replaced by its value; a list item
                            whose placeholder has a list of values is written once per value
merge_patch(target, patch)  RFC 7396 (`null` removes a key, objects merge, the rest replaces),
                            plus: an object given for a list merges into every item of that list
```

Neither `fill` nor `merge_patch` changes its arguments; both keep the key order of what they are
given (new keys go last), so a written file's bytes follow the template's order (and, for the
Firefox build, extension/manifest.json's).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from native_host import paths
from native_host.errors import InstallError
from native_host.install.locations import ManifestKind

HOST_MANIFEST_TEMPLATES: Final[Mapping[ManifestKind, str]] = {
    "chromium": "host-manifest.chromium.json",
    "firefox": "host-manifest.firefox.json",
}
"""The host-manifest template for each kind of browser (Chromium family: `allowed_origins`;
Firefox: `allowed_extensions`)."""

FIREFOX_OVERLAY: Final = "extension-overlay.firefox.json"
"""The merge patch that turns `extension/manifest.json` into the Firefox build's manifest."""

PLACEHOLDER: Final = re.compile(r"\{([a-z_]+)\}")
"""`{name}` inside a template string. Only template text is searched, never a filled-in value, so
a Firefox id like `{8c0f…}` passed with --extension-id is written as it is."""

Values = Mapping[str, str | Sequence[str]]
"""Placeholder name → its text, or a list of texts for a placeholder that repeats a list item."""


def load(name: str) -> Any:
    """The JSON of the template `name` in `paths.manifests_dir()`. Raises InstallError (ending with
    the fix) when the folder or the file is missing or not valid JSON."""
    try:
        return json.loads((paths.manifests_dir() / name).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InstallError(
            f"Cannot read the webctx manifest template {name} ({exc}). Reinstall webctx.",
            fix="pip install --force-reinstall webctx",
        ) from None


def fill(template: Any, values: Values) -> Any:
    """A copy of `template` with every `{placeholder}` in its strings replaced from `values`. A
    list item (a string) holding a placeholder whose value is a list becomes one item per value, in
    order; at most one such placeholder per item. Raises KeyError naming a placeholder `values`
    lacks, TypeError for a list value where one text is wanted (a template bug, which tests catch)."""
    if isinstance(template, dict):
        return {key: fill(value, values) for key, value in template.items()}
    if isinstance(template, list):
        return [filled for item in template for filled in _fill_item(item, values)]
    if isinstance(template, str):
        return _fill_text(template, values)
    return template


def _fill_item(item: Any, values: Values) -> list[Any]:
    if isinstance(item, str):
        repeated = [name for name in PLACEHOLDER.findall(item) if not isinstance(values[name], str)]
        if len(repeated) > 1:
            raise TypeError(f"{item!r} repeats for more than one placeholder: {repeated}")
        if repeated:
            name = repeated[0]
            return [_fill_text(item, {**values, name: each}) for each in values[name]]
    return [fill(item, values)]


def _fill_text(text: str, values: Values) -> str:
    def value(match: re.Match[str]) -> str:
        found = values[match.group(1)]
        if not isinstance(found, str):
            raise TypeError(f"{{{match.group(1)}}} in {text!r} has a list of values, not one text")
        return found

    return PLACEHOLDER.sub(value, text)


def merge_patch(target: Any, patch: Any) -> Any:
    """`target` with the JSON merge patch `patch` applied (RFC 7396): for each key of an object
    `patch`, `null` removes the key, anything else is merged into the key's value (new keys go
    last); a `patch` that is not an object replaces `target`. One addition: an object `patch` for a
    list `target` is merged into every item. Objects on the way are copied, so neither argument
    changes; values `patch` does not reach are shared with `target`."""
    if not isinstance(patch, dict):
        return patch
    if isinstance(target, list):
        return [merge_patch(item, patch) for item in target]
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result
