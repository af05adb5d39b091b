"""`current` without a round trip to the browser: the tree the worker pushed (docs/internals/protocol.md
"Pushed tree", docs/internals/native-host.md).

```
worker ── tree {complete, root, windowFocused} ──► TreeCache.update   (validated once, on arrival;
                                                   a root deeper than MAX_JSON_DEPTH is not kept)
MCP `current` ──► PushedTree (a layer of the request chain, chain.py)
                    ├─ a complete pushed tree of this connection → the same reply object, no I/O
                    └─ else (none yet, `complete: false`, cleared, too deep) → call_next (the Bridge)
                         an answer deeper than MAX_JSON_DEPTH → TooDeep (run_current: isError)
hello again, the port closing ──► TreeCache.clear                     (never a dead worker's tree)
```

The worker pushes on every change it sees (tab and window events, frame reports, page tools,
settings, the headless window-state poll) and only when the tree differs from its last push, so
a complete pushed tree is as fresh as the worker's own view; it says `complete: false` whenever
answering needs a page asked first (design.md §4 "Freshness"), and then the host asks as before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from native_host.errors import TooDeep
from native_host.protocol.native import MAX_JSON_DEPTH, CurrentRequest, TreePush, exceeds_depth
from native_host.provider.port.chain import Call, Next

log = logging.getLogger(__name__)


class TreeCache:
    """The latest pushed tree of one native port (one worker connection).

    `reply()` is the `current` result the worker would have sent (`{root, windowFocused}`, wire
    shape), the same object until the next push: callers must not change it (profiles/merge.py copies
    before it edits; builtin_tools.py keys its memo on its identity). `on_change` is called after
    every push and every clear (a follower host passes its tree on: profiles/handoff.py).
    """

    def __init__(self, on_change: Callable[[], None] | None = None) -> None:
        self._reply: dict[str, Any] | None = None
        self.pushes = 0
        """How many `tree` frames arrived (diagnostics and tests)."""
        self._on_change = on_change

    def update(self, push: TreePush, raw: Mapping[str, Any]) -> None:
        """Take a validated `tree` frame (`push`) and the decoded frame it came from (`raw`,
        whose `root` is kept as sent: validation already checked it against answers.Element). A
        root nested deeper than MAX_JSON_DEPTH is not kept (the next `current` asks the worker, and
        the old tree is forgotten too): the MCP SDK could not send it."""
        self.pushes += 1
        root = raw.get("root")
        if not push.complete or push.root is None or not isinstance(root, dict):
            self._reply = None
        elif exceeds_depth(root):
            log.warning("the pushed tree is nested deeper than %d levels; not kept", MAX_JSON_DEPTH)
            self._reply = None
        else:
            self._reply = {"root": root, "windowFocused": push.window_focused}
        if self._on_change is not None:
            self._on_change()

    def clear(self) -> None:
        """Forget the tree: a new `hello` (ids may start over) or the port closed."""
        had = self._reply is not None
        self._reply = None
        if had and self._on_change is not None:
            self._on_change()

    def reply(self) -> dict[str, Any] | None:
        """The cached `current` result, or None when there is no complete tree to answer from."""
        return self._reply


class PushedTree:
    """A layer of the request chain (chain.py) that answers `current` from `cache` when it can,
    and passes every other request, and `current` without a complete pushed tree, on. `alive()`
    false (the port closed) forgets the tree: the Bridge then says why it cannot answer."""

    def __init__(self, cache: TreeCache, alive: Callable[[], bool] = lambda: True) -> None:
        self._alive = alive
        self.cache = cache

    async def __call__(self, call: Call, call_next: Next) -> Any:
        """`current` from the pushed tree when there is a complete one (no I/O, so neither deadline
        nor ProviderUnavailable applies), else `call_next(call)`. Raises TooDeep when the worker
        answers `current` with a `root` nested deeper than MAX_JSON_DEPTH (the extension's tree
        never is: the answer is not passed on)."""
        if not isinstance(call.request, CurrentRequest):
            return await call_next(call)
        if not self._alive():
            self.cache.clear()
        cached = self.cache.reply()
        if cached is not None:
            return cached
        reply = await call_next(call)
        check_tree_depth(reply)
        return reply


def check_tree_depth(reply: Any) -> None:
    """Raise TooDeep when `reply`, a `current` result (`{root, windowFocused}`), has a `root`
    nested deeper than MAX_JSON_DEPTH; anything else is left to the shape checks."""
    root = reply.get("root") if isinstance(reply, dict) else None
    if exceeds_depth(root):
        raise TooDeep(
            f"The browser's context tree is nested deeper than {MAX_JSON_DEPTH} levels of JSON arrays "
            "and objects, so it was not passed on. Update or reinstall the webctx extension."
        )
