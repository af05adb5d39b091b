"""Running the built-in MCP tools `current` and `location` against the extension (docs/internals/protocol.md);
the third, `read_page`, is read_page.py.

```
tools/call current {}         ──► BuiltinTools.run_current
                                    Requester.request(CurrentRequest()) ──► {root}
                                      (tree_cache.py: often no I/O)
                                    ──► {protocol, instance, root}, checked against CurrentAnswer once
tools/call location {id}      ──► BuiltinTools.run_location
                                    check the id (ID_PATTERN)
                                    ──► Requester.request(LocationRequest(element_id))
                                    ──► LocationAnswer + `window`: WindowFinder(bounds) → OS window number
```

Their `tools/list` entries live in protocol/tools.py (shared with `webctx mcp`); endpoint.py
serves them. A tree or location nested deeper than MAX_JSON_DEPTH is an `isError` naming the limit
(tree_cache.check_tree_depth). Every failure is an `isError` result with one
sentence ending with the fix, never an exception text (design.md §1).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcp import types
from pydantic import ValidationError

from native_host.errors import DeadlineExceeded, ExtensionError, ProviderUnavailable, TooDeep
from native_host.protocol.answers import CurrentAnswer, WindowBounds
from native_host.protocol.base import ID_PATTERN
from native_host.protocol.native import (
    CURRENT_DEADLINE_MS,
    LOCATION_DEADLINE_MS,
    MAX_JSON_DEPTH,
    CurrentRequest,
    LocationReply,
    LocationRequest,
    exceeds_depth,
)
from native_host.protocol.resources import without_background_links
from native_host.protocol.tools import CURRENT_TOOL, LOCATION_TOOL, id_error, json_result, tool_error
from native_host.protocol.version import PROTOCOL_VERSION
from native_host.provider.platform import has_windows, window_number
from native_host.provider.port.chain import Requester

log = logging.getLogger(__name__)

ToolRunner = Callable[[dict[str, Any]], Awaitable[types.CallToolResult]]
"""Runs one call of a tool with the call's `arguments` (never None; `{}` when absent)."""

ContextToolRunner = Callable[[Any, dict[str, Any]], Awaitable[types.CallToolResult]]
"""Runs one call with the SDK's request context (who asks) and the call's `arguments`, and keeps
its own activity entry (read_page.py: the same entry as `resources/read`)."""

WindowFinder = Callable[[WindowBounds], Awaitable["int | None"]]
"""Maps the browser window's bounds (points) to the OS window number, or None where there is none."""


@dataclass(frozen=True)
class ToolSpec:
    """One MCP tool: its `tools/list` entry and the coroutine that runs a call with the call's
    `arguments` (never None; `{}` when absent); `in_context`, when set, is what the endpoint runs
    instead, with the request context, and the endpoint then records no activity entry of its own."""

    tool: types.Tool
    run: ToolRunner
    in_context: ContextToolRunner | None = None


@functools.cache
def _browser_pid() -> int:
    """The browser's main pid (it does not change during the host's life)."""
    from native_host.protocol.browser_identity import find_browser_process

    return find_browser_process()[0]


async def default_window_finder(bounds: WindowBounds) -> int | None:
    """`platform.window_number` for the browser that started this host, off the event loop; None
    at once where there can be no window (`platform.has_windows()` false: e.g. no DISPLAY)."""
    if not has_windows():
        return None
    return await asyncio.to_thread(lambda: window_number(bounds, _browser_pid()))


class BuiltinTools:
    """`current` and `location` of one native-host instance, as `specs` for the endpoint's table.

    `requester` reaches the extension (the endpoint's request chain, serving.py);
    `instance` is the host's instance, put into every `current` answer; `current_deadline_ms`
    and `location_deadline_ms` bound one request to the extension, in ms; `window_finder` adds
    the OS window number to a `location` answer; `on_current` sees every `current` reply a
    client gets (the page resources' list, page_resources.py `observe_current`).
    """

    def __init__(
        self,
        requester: Requester,
        *,
        instance: str,
        current_deadline_ms: int = CURRENT_DEADLINE_MS,
        location_deadline_ms: int = LOCATION_DEADLINE_MS,
        window_finder: WindowFinder = default_window_finder,
        on_current: Callable[[Any], None] = lambda reply: None,
    ) -> None:
        self._requester = requester
        self._on_current = on_current
        self._instance = instance
        self._current_deadline_ms = current_deadline_ms
        self._location_deadline_ms = location_deadline_ms
        self._window_finder = window_finder
        self._current_memo: tuple[object, dict[str, Any], str] | None = None
        """The last `current` reply object, its checked answer and JSON text: a pushed tree
        (tree_cache.py) is the same object until the next push, so it is checked and encoded once."""
        self.specs: tuple[ToolSpec, ...] = (
            ToolSpec(CURRENT_TOOL, self.run_current),
            ToolSpec(LOCATION_TOOL, self.run_location),
        )
        """The tools, in `tools/list` order."""

    async def run_current(self, arguments: dict[str, Any]) -> types.CallToolResult:
        """design.md §1.1: ask the extension for the tree, wrap it as `{protocol, instance, root}`."""
        if arguments:
            return tool_error("The `current` tool takes no arguments; call it with {}.")
        try:
            reply = await self._requester.request(CurrentRequest(), deadline_ms=self._current_deadline_ms)
        except DeadlineExceeded:
            return tool_error(
                f"The browser did not answer within {self._current_deadline_ms} ms. "
                "It may be busy; try again in a moment."
            )
        except ExtensionError as exc:
            return tool_error(
                f"The browser extension could not report the current context (code {exc.code})."
            )
        except ProviderUnavailable:
            return tool_error(
                "The browser extension is no longer connected. Reopen the browser and try again."
            )
        except TooDeep as exc:  # tree_cache.check_tree_depth: the sentence names the limit
            return tool_error(str(exc))
        self._on_current(reply)
        memo = self._current_memo
        if memo is not None and memo[0] is reply:
            return json_result(memo[1], memo[2])
        root = reply.get("root") if isinstance(reply, dict) else None
        # Background Pages' resource links stay out of `current` (resources/list has them).
        root = without_background_links(root)
        answer = {"protocol": PROTOCOL_VERSION, "instance": self._instance, "root": root}
        try:
            CurrentAnswer.model_validate(answer)
        except ValidationError as exc:
            log.warning("current: the extension's tree failed validation (%d errors)", exc.error_count())
            return tool_error("The browser extension sent a context tree of the wrong shape. Update webctx.")
        text = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
        self._current_memo = (reply, answer, text)
        return json_result(answer, text)

    async def run_location(self, arguments: dict[str, Any]) -> types.CallToolResult:
        """design.md §1.2: check the id, ask the extension where it is, add the OS window number."""
        element_id = arguments.get("id")
        well_formed = isinstance(element_id, str) and ID_PATTERN.fullmatch(element_id) is not None
        if set(arguments) != {"id"} or not well_formed or not isinstance(element_id, str):
            return id_error(
                "invalid_id",
                "`location` takes {\"id\": \"<element id>\"} with an id from `current` "
                "(1 to 128 letters, digits, `-` or `_`).",
            )
        try:
            reply = await self._requester.request(
                LocationRequest(element_id=element_id), deadline_ms=self._location_deadline_ms
            )
        except DeadlineExceeded:
            return tool_error(
                f"The browser did not answer within {self._location_deadline_ms} ms. Try again."
            )
        except ExtensionError as exc:
            if exc.code in ("unknown_id", "invalid_id"):
                what = "was never issued by" if exc.code == "unknown_id" else "is not a valid id of"
                return id_error(
                    exc.code, f"The id {element_id!r} {what} this provider instance; ask `current` again."
                )
            return tool_error(f"The browser extension could not locate the element (code {exc.code}).")
        except ProviderUnavailable:
            return tool_error(
                "The browser extension is no longer connected. Reopen the browser and try again."
            )
        if exceeds_depth(reply):  # extra fields pass validation, but pydantic could not send them
            return tool_error(
                f"The browser extension sent a location nested deeper than {MAX_JSON_DEPTH} levels "
                "of JSON arrays and objects. Update or reinstall the webctx extension."
            )
        try:
            parsed = LocationReply.model_validate(reply)
        except ValidationError as exc:
            log.warning("location: the extension's reply failed validation (%d errors)", exc.error_count())
            return tool_error("The browser extension sent a location of the wrong shape. Update webctx.")
        answer = parsed.location.to_wire()
        answer.pop("window", None)
        if parsed.window_bounds is not None and parsed.location.state != "gone":
            try:
                window = await self._window_finder(parsed.window_bounds)
            except Exception:
                log.warning("location: finding the OS window failed", exc_info=True)
                window = None
            if window is not None:
                answer["window"] = window
        return json_result(answer)
