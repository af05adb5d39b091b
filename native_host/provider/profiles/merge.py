"""The merged tree: every profile's windows under the provider's Application (design.md §3 "Several
profiles, one provider"; handoff.py).

```
provider's own {root: Application[win-1 …], windowFocused}
  + follower k's {root: Application[win-1 …], windowFocused}   ids → f<k>-win-1 …  (prefix_ids)
  = {root: Application[win-1 …, f1-win-1 …, f2-…], windowFocused}                  (merge_windows)
```

A follower's element ids get the prefix `f<k>-` (`FOLLOWER_ID`), so ids stay unique in the merged
tree; requests about such an id go to follower `k` without the prefix (`strip_prefix`). A Page's
resource_links of the follower's instance (`webctx://<its instance>/tab-3/text`) become
the provider's (`webctx://<our instance>/f<k>-tab-3/text`): clients read them from the provider. A Page's
`attributes.tools` name the provider's MCP tools (follower_tools.py). One focus path survives: the
profile whose window really has the browser's focus (each extension's `windowFocused`, from
`chrome.windows.getLastFocused().focused`) keeps its `focused` marks, the others lose theirs;
when none has focus, the provider's own tree keeps its marks. Every function returns copies where
it changes something, never editing the trees it is given: they are pushed trees, shared until
their next push (tree_cache.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final, TypeVar

from native_host.protocol.native import HostRequest
from native_host.protocol.resources import format_page_uri, parse_page_uri

FOLLOWER_ID: Final = re.compile(r"f(\d+)-(.+)", re.DOTALL)
"""A follower's element id in the merged tree: `f<k>-<the follower's own id>`."""

Windows = tuple[list[dict[str, Any]], bool]
"""One profile's part of the merged tree: `(its Window elements, windowFocused)`."""


Instances = tuple[str, str]
"""`(the follower's instance, the provider's)`: whose page-resource links are rewritten to whose."""


def _relink(content: list[Any], prefix: str, instances: Instances) -> list[Any]:
    """`content` with each resource_link of the follower's instance pointing at the provider's
    instance and the prefixed page id; other blocks (and links of other instances: gone) as they are."""
    out: list[Any] = []
    for block in content:
        parsed = parse_page_uri(block.get("uri")) if isinstance(block, dict) else None
        if parsed is not None and block.get("type") == "resource_link" and parsed.instance == instances[0]:
            try:
                block = {**block, "uri": format_page_uri(instances[1], prefix + parsed.page_id, parsed.kind)}
            except ValueError:  # the prefixed id is over 128 characters: no link rather than a wrong one
                continue
        out.append(block)
    return out


def prefix_ids(
    element: dict[str, Any],
    prefix: str,
    tool_names: Mapping[str, str] | None = None,
    instances: Instances | None = None,
) -> dict[str, Any]:
    """A copy of `element` whose every `id` (recursively) starts with `prefix`; a Page's
    `attributes.tools` (the follower's exposed names) become the provider's names in `tool_names`
    (follower_tools.py), names it does not hold are left out; with `instances`, its page-resource
    links become the provider's (`_relink`)."""
    copy = dict(element)
    if isinstance(copy.get("id"), str):
        copy["id"] = prefix + copy["id"]
    if instances is not None and isinstance(copy.get("content"), list):
        copy["content"] = _relink(copy["content"], prefix, instances)
    attributes = copy.get("attributes")
    if tool_names is not None and isinstance(attributes, dict) and isinstance(attributes.get("tools"), list):
        names = [tool_names[n] for n in attributes["tools"] if isinstance(n, str) and n in tool_names]
        copy["attributes"] = {**attributes, "tools": names}
    children = copy.get("children")
    if isinstance(children, list):
        copy["children"] = [
            prefix_ids(c, prefix, tool_names, instances) for c in children if isinstance(c, dict)
        ]
    return copy


R = TypeVar("R", bound=HostRequest)


def strip_prefix(request: R, prefix: str) -> R:
    """`request` with the follower `prefix` taken off its `page_id` and `element_id` (the
    follower's extension knows its ids without it); the same object when neither has it."""
    update: dict[str, str] = {}
    for name in ("page_id", "element_id"):
        value = getattr(request, name, None)
        if isinstance(value, str) and value.startswith(prefix):
            update[name] = value[len(prefix):]
    return request.model_copy(update=update) if update else request


def follower_windows(
    result: Any, prefix: str, tool_names: Mapping[str, str], instances: Instances | None = None
) -> Windows:
    """A follower's `current` result (`{root: Application, windowFocused?}`) as its part of the
    merged tree: its windows with ids prefixed and links rewritten (`prefix_ids`), and its
    `windowFocused`."""
    root = result.get("root") if isinstance(result, dict) else None
    windows = root.get("children") if isinstance(root, dict) else None
    focused = isinstance(result, dict) and result.get("windowFocused") is True
    windows = [prefix_ids(w, prefix, tool_names, instances) for w in windows or [] if isinstance(w, dict)]
    return windows, focused


def _has_focus(element: dict[str, Any]) -> bool:
    """Whether `element` or any element below it has `focused` (iterative: no recursion limit)."""
    stack = [element]
    while stack:
        current = stack.pop()
        if "focused" in current:
            return True
        children = current.get("children")
        if isinstance(children, list):
            stack.extend(c for c in children if isinstance(c, dict))
    return False


def drop_focus(element: dict[str, Any]) -> dict[str, Any]:
    """`element` with `focused` removed everywhere below and including it: a copy where there was
    one, else `element` itself (the scan is ~50x cheaper than the copy: a 2 MiB follower tree's
    windows took 56 ms to copy on the event loop, for every merge)."""
    if not _has_focus(element):
        return element
    copy = {k: v for k, v in element.items() if k != "focused"}
    children = copy.get("children")
    if isinstance(children, list):
        copy["children"] = [drop_focus(c) for c in children if isinstance(c, dict)]
    return copy


def merge_windows(own: Any, others: list[Windows]) -> Any:
    """`own` (`{root: Application, windowFocused?}`) with the follower windows in `others` (each
    `(windows, windowFocused)`) appended to its root's children. One focus path survives: the
    profile whose window really has the focus (`windowFocused`), else the provider's own."""
    if not isinstance(own, dict) or not isinstance(own.get("root"), dict) or not any(w for w, _ in others):
        return own
    root = dict(own["root"])
    own_windows = [c for c in root.get("children") or [] if isinstance(c, dict)]
    groups = [(own_windows, own.get("windowFocused") is True), *others]
    winner = next((n for n, (_, focused) in enumerate(groups) if focused), 0)
    children: list[dict[str, Any]] = []
    for n, (windows, _) in enumerate(groups):
        children.extend(windows if n == winner else [drop_focus(w) for w in windows])
    root["children"] = children
    return {**own, "root": root}
