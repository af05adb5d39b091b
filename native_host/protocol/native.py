"""Native-messaging frames between the service worker and the native host, and their limits
(design.md §4, §5; docs/internals/protocol.md "Messages"). Just over 400 lines: one model per
native-port message type, together with the type list that scripts/gen_wire.py writes into
extension/wire.js, so every message of the port has one home."""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Final, Literal

from pydantic import ConfigDict, Field, TypeAdapter, field_validator

from native_host import __version__
from native_host.protocol.answers import Element, LocationAnswer, WindowBounds
from native_host.protocol.base import ID_PATTERN, IncomingFrame, WireModel
from native_host.protocol.extension_rules import MAX_ORIGIN_CHARS
from native_host.protocol.version import PROTOCOL_VERSION

MAX_BROWSER_TO_HOST_BYTES: Final = 64 << 20
"""Largest frame the browser sends to a native host (Chromium's limit; design.md §4)."""


MAX_HOST_TO_BROWSER_BYTES: Final = 1 << 20
"""Largest frame a native host may send; Chromium kills the port above it (design.md §4)."""


MAX_JSON_DEPTH: Final = 100
"""Deepest nesting of JSON arrays and objects the host passes on from a page or the extension, in
levels (`[]` and `{}` are 1, `[[1]]` is 2): a pushed or answered tree's `root`, another profile's
tree, a `location` answer, a page tool's result and its `inputSchema` (the table
of what happens above it: docs/internals/protocol.md "Frames").

Why 100: the deepest tree the extension builds is 45 levels (Application > Window > Page > at most
17 frame Groups (pointing.js MAX_FRAME_DEPTH) > focus box > Text with `content`, two levels per
element), so there is room to spare; and the whole JSON-RPC message around it (≤ 4 more levels)
stays under serde_json's default recursion limit (128: MCP clients written in Rust parse with it)
and far under pydantic's serializer limit (about 250 levels: above it the MCP SDK answers a
JSON-RPC error, code 0, instead of the result)."""


def exceeds_depth(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether the JSON value `value` (dicts, lists and scalars, as `json.loads` makes them) nests
    arrays and objects more than `limit` levels deep (a scalar is 0 levels, `[]` 1, `[[1]]` 2).

    Iterative, level by level (no recursion: any depth is safe), and it stops at level
    `limit + 1`; below that it visits each container once. Cost: ~17 ms for a 1.8 MB tree of
    11,000 elements on the 2-vCPU dev VM (its `json.loads` takes ~45 ms), ~0.1 ms for a usual
    tree."""
    level = [value] if isinstance(value, dict | list) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        below: list[Any] = []
        for container in level:
            for item in container.values() if isinstance(container, dict) else container:
                if isinstance(item, dict | list):
                    below.append(item)
        level = below
    return False


NATIVE_MESSAGE_TYPES: Final = (
    "hello",
    "current",
    "location",
    "ping",
    "tools.call",
    "tools.cancel",
    "tools.changed",
    "chunk",
    "result",
    "error",
    "provider.ready",
    "tree",
    "activity",
    "page.read",
)
"""Every `type` that crosses the native port (docs/internals/protocol.md "Messages"). The extension takes this
list and a constant per type (`tools.call` → TOOLS_CALL) from extension/wire.js, which
scripts/gen_wire.py writes from it."""


CURRENT_DEADLINE_MS: Final = 3000
"""How long the host waits for the worker's reply to `current` (docs/internals/protocol.md), in ms."""


class HelloExtension(IncomingFrame):
    """`hello.extension`: the extension's id and version (`chrome.runtime.id`, manifest version)."""

    id: str
    version: str | None = None


class HelloBrowser(IncomingFrame):
    """`hello.browser`: the browser's product name and full version (e.g. "Chromium",
    "156.0.8078.114"), and `navigator.userAgent`. The version goes into the descriptor (design.md §3)."""

    name: str | None = None
    version: str | None = None
    user_agent: str | None = None


class HelloSettings(IncomingFrame):
    """`hello.settings`: `enabled: false` means the user switched the provider off (design.md §3:
    no descriptor, no port). Missing means enabled."""

    enabled: bool = True


class Hello(IncomingFrame):
    """worker → host, first message on a new port (docs/internals/protocol.md). Answered with a `result`
    carrying a HelloReply before the host's `mcp` import finishes."""

    type: Literal["hello"]
    id: str
    protocol: str
    extension: HelloExtension | None = None
    browser: HelloBrowser | None = None
    settings: HelloSettings = Field(default_factory=HelloSettings)


class HelloReply(WireModel):
    """The `result` of `hello`: the host's instance (16 random bytes, URL-safe base64, minted at
    start), its protocol version, and whether it serves MCP (false when the user switched it off)."""

    instance: str
    protocol: str = PROTOCOL_VERSION
    version: str | None = __version__
    """The native host's webctx version (the worker shows a mismatch with its own)."""
    listening: bool
    problem: str | None = None
    """Why the host does not serve although the user switched it on (e.g. an unsafe providers
    folder, design.md §3): one sentence ending with the fix, for the popup."""


class HostRequest(WireModel):
    """Base of every host → worker request: the message without its `id`, which the port that
    sends it adds (provider/port/bridge.py `h-<n>`, the hand-off `p-<n>`). Immutable: one request
    object may pass several layers (provider/port/chain.py) and be sent to several profiles.

    `default_deadline_ms()` is how long the host waits for its reply unless the caller says
    otherwise, in ms. Unknown fields are ignored when one is parsed (a newer provider's, over the
    hand-off: protocol/handoff.py). `SENDS_DEADLINE`: the worker is told that deadline too (`deadlineMs`), for
    a request whose own work must end before it (a page-tool call's confirmation prompt)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    type: str
    DEADLINE_MS: ClassVar[int]
    SENDS_DEADLINE: ClassVar[bool] = False

    def default_deadline_ms(self) -> int:
        """How long to wait for the reply when the caller does not say, in ms."""
        return self.DEADLINE_MS


class CurrentRequest(HostRequest):
    """host → worker: "send the tree" (design.md §1.1). Reply: `result` with `{root: Element}`."""

    type: Literal["current"] = "current"
    DEADLINE_MS: ClassVar[int] = CURRENT_DEADLINE_MS


PING_DEADLINE_MS: Final = 3000
"""How long a bench `ping` may take, in ms (bench only; the worker answers at once)."""


class PingRequest(HostRequest):
    """host → worker, bench only (native_host/provider/port/bench_ping.py): answered `result {}` at
    once, so its round trip is native messaging alone (docs/internals/protocol.md)."""

    type: Literal["ping"] = "ping"
    DEADLINE_MS: ClassVar[int] = PING_DEADLINE_MS
    page: bool | None = None
    """True: the worker times one page-channel round trip to the active tab and answers `{pageMs}`."""


LOCATION_DEADLINE_MS: Final = 3000
"""How long the host waits for the worker's reply to `location` (docs/internals/protocol.md), in ms."""


class LocationRequest(HostRequest):
    """host → worker: "where is this element?" (design.md §1.2). The request's own `id` is the request
    id, so the element id travels as `elementId`. Reply: `result` with a LocationReply, or `error`
    with code `unknown_id` / `invalid_id`."""

    type: Literal["location"] = "location"
    DEADLINE_MS: ClassVar[int] = LOCATION_DEADLINE_MS
    element_id: str


class LocationReply(WireModel):
    """The `result` of `location`: the answer, and the window bounds for finding `window`."""

    model_config = ConfigDict(extra="allow")

    location: LocationAnswer
    window_bounds: WindowBounds | None = None


class ErrorBody(IncomingFrame):
    """`error.error`: a stable snake_case `code` (errors.py) and a sentence for people."""

    code: str
    message: str = ""


class ResultFrame(IncomingFrame):
    """A successful reply (either direction): `id` echoes the request's, `result` is its value."""

    type: Literal["result"] = "result"
    id: str
    result: Any


class ErrorFrame(IncomingFrame):
    """A failed reply (either direction): `id` echoes the request's."""

    type: Literal["error"] = "error"
    id: str
    error: ErrorBody


class ChunkFrame(WireModel):
    """host → worker, one slice of a message whose UTF-8 JSON exceeds MAX_HOST_TO_BROWSER_BYTES.

    `of` names the chunk group (a string, `c-<n>`), `index` is 0-based, `count` is the number of
    chunks; `data` is a slice of the message's JSON text cut on a code-point boundary. The worker
    joins the `data` of indexes 0..count-1 and handles the parsed message as if it came whole.
    """

    type: Literal["chunk"] = "chunk"
    of: str
    index: int = Field(ge=0)
    count: int = Field(ge=1)
    data: str


class ProviderReady(WireModel):
    """host → worker event (no id): the MCP endpoint listens on 127.0.0.1:`port` and the descriptor
    is written (design.md §3). The popup shows the port; the token never crosses the native port."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["provider.ready"] = "provider.ready"
    port: int = Field(ge=1, le=65535)
    via_provider: bool | None = None
    """True when this host stands by (another profile's host is the browser's provider, design.md §3):
    `port` is then the provider's MCP port, which this profile's pages are served through."""


class ActivityEvent(WireModel):
    """host → worker event (no id): a desktop host read through MCP (provider/activity.py):
    `entry` is `{at, client: {name, version?}, tool, ok, elements: [{kind, id, page?, title?}]}`,
    ids, roles and page titles only, never content. The worker keeps the last 50 for the popup's
    "Who read it" and lights the toolbar badge for a moment."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["activity"] = "activity"
    entry: dict[str, Any]


PAGE_TEXT_DEADLINE_MS: Final = 10_000
"""How long the host waits for the worker's reply to `page.read` of kind "text", in ms
(injecting Readability + turndown and running them on a large page takes seconds)."""

PAGE_SCREENSHOT_DEADLINE_MS: Final = 10_000
"""How long the host waits for the worker's reply to `page.read` of kind "screenshot", in ms: the
worker may wait up to 3 s for its turn under the browser's capture quota (screenshot.js
MAX_CAPTURE_WAIT_MS), and the browser's own PNG encode of a 2560x1440 photo-like capture took 3.3 s
of a 5.5 s read at load 15-21, over the 5 s first chosen."""


class PageReadRequest(HostRequest):
    """host → worker: read Page `page_id` (as `current` answers it; a follower's prefix is taken off
    on the way to it) as `kind` (docs/internals/protocol.md "Messages"). `max_bytes` (text only): cap of the
    Markdown in UTF-8 bytes (the worker clamps to [1024, 4 MiB]). Reply: `result` with a
    PageTextResult or PageScreenshotResult, or `error` with a code of protocol/resources.py
    REASON_WORDS."""

    type: Literal["page.read"] = "page.read"
    page_id: str = Field(pattern=ID_PATTERN.pattern)
    kind: Literal["text", "screenshot"]
    max_bytes: int | None = Field(default=None, ge=1)

    def default_deadline_ms(self) -> int:
        """PAGE_TEXT_DEADLINE_MS or PAGE_SCREENSHOT_DEADLINE_MS, by `kind`."""
        return PAGE_TEXT_DEADLINE_MS if self.kind == "text" else PAGE_SCREENSHOT_DEADLINE_MS


class PageTextResult(IncomingFrame):
    """The `result` of `page.read` kind "text": `markdown` (≤ maxBytes UTF-8 bytes, cut on a
    character boundary), `truncated`, `bytes` (UTF-8 length of the whole Markdown before the cut),
    `source` ("readability" | "visible-text" | "pdf"), the page's `title` and `url` at read time."""

    kind: Literal["text"]
    markdown: str
    truncated: bool = False
    bytes: int = Field(ge=0)
    source: str = "readability"
    title: str = ""
    url: str = ""


class PageScreenshotResult(IncomingFrame):
    """The `result` of `page.read` kind "screenshot": `mime_type` (image/png | image/jpeg), `data`
    (base64, no `data:` prefix), `width`/`height` in output px (longest side ≤ 1600),
    `device_pixel_ratio` (captured px per CSS px), `scale` (output px / captured px, ≤ 1)."""

    kind: Literal["screenshot"]
    mime_type: Literal["image/png", "image/jpeg"]
    data: str = Field(min_length=1)
    width: int = Field(ge=1)
    height: int = Field(ge=1)
    device_pixel_ratio: float = Field(gt=0)
    scale: float = Field(gt=0, le=1)


PAGE_TOOL_DEADLINE_MS: Final = 60_000
"""Default limit for one page-tool call, in ms (design.md §5); `WEBCTX_PAGE_TOOL_DEADLINE_MS` overrides it."""


TOOLS_CANCEL_DEADLINE_MS: Final = 2000
"""How long the host waits for the worker to acknowledge `tools.cancel`, in ms."""


PAGE_TOOL_NAME_PATTERN: Final = re.compile(r"^[A-Za-z0-9_]{1,48}$")
"""Exposed page-tool names (design.md §5): what today's strictest MCP clients accept."""


class PageToolAnnotations(IncomingFrame):
    """The page's WebMCP `ToolAnnotations` (webmcp.md §1.2), each optional."""

    read_only_hint: bool | None = None
    untrusted_content_hint: bool | None = None
    consequential_hint: bool | None = None


class PageTool(IncomingFrame):
    """One exposed page tool, as the worker lists it in `tools.changed` (design.md §5).

    `name` is the exposed MCP name (`p<n>_…`, at most 48 of `[A-Za-z0-9_]`); `tool_name` the
    page's original WebMCP name; `page_id` the Page element id (`tab-<n>`); `page_title`,
    `origin`, `url` describe the page; `input_schema` the page's JSON Schema (an object, or None).
    `frame_origin` and `frame_url` are set when the tool belongs to a cross-origin iframe of the
    page that has `allow="tools"` and exposed the tool to the page's origin (`exposedTo`); the
    call runs there. An `input_schema` nested deeper than MAX_JSON_DEPTH is dropped (None).
    """

    name: str = Field(pattern=PAGE_TOOL_NAME_PATTERN.pattern)
    tool_name: str = Field(min_length=1, max_length=128)
    page_id: str = Field(pattern=ID_PATTERN.pattern)
    description: str = ""
    title: str | None = None
    page_title: str = ""
    origin: str = ""
    url: str = ""
    input_schema: dict[str, Any] | None = None
    annotations: PageToolAnnotations | None = None
    frame_origin: str | None = Field(default=None, max_length=MAX_ORIGIN_CHARS)
    frame_url: str | None = None

    @field_validator("input_schema")
    @classmethod
    def _bounded_schema(cls, schema: dict[str, Any] | None) -> dict[str, Any] | None:
        """A schema nested deeper than MAX_JSON_DEPTH becomes None (no usable schema: the tool is
        listed with `{"type": "object"}`, page_tools.mcp_tool), as it enters: pydantic could not
        serialize it, so `tools/list`, the hand-off and every later `tools.changed` would fail
       ."""
        return None if schema is not None and exceeds_depth(schema) else schema


class ToolsChanged(IncomingFrame):
    """worker → host event (no id): the full list of exposed page tools, sent whenever it changes
    (tab switch, navigation, minimize/restore, `toolchange`) and after every `hello`."""

    type: Literal["tools.changed"]
    tools: list[PageTool]


class TreePush(IncomingFrame):
    """worker → host event (no id): the `current` answer, pushed whenever it changes (the
    worker's tree_push.js; docs/internals/protocol.md "Pushed tree"). `complete` false (no `root`): the
    tree cannot be told without asking a page (a selection still moving, a large field's text
    pending, a page that never reported), so the host asks the worker with `current` as before."""

    type: Literal["tree"]
    complete: bool
    root: Element | None = None
    window_focused: bool = False


class ToolCallRequest(HostRequest):
    """host → worker: run page tool `name` (the original WebMCP name) of Page `page_id` with
    `input` (a JSON object). Reply: `result` with a ToolCallReply, or `error` with code
    `page_gone` (tab closed or navigated, tool gone) or `unknown_page`.

    The port adds `deadlineMs`, the host's limit for the whole call in ms (PAGE_TOOL_DEADLINE_MS
    unless overridden): a confirmation prompt answers "timed out" shortly before it
    (docs/internals/extension.md)."""

    type: Literal["tools.call"] = "tools.call"
    DEADLINE_MS: ClassVar[int] = PAGE_TOOL_DEADLINE_MS
    SENDS_DEADLINE: ClassVar[bool] = True
    page_id: str
    name: str
    input: dict[str, Any]

    def to_wire(self) -> dict[str, Any]:
        """The wire fields, `input` as given: a page-tool input may be megabytes, which
        `model_dump` would copy once more on its way to the port's JSON encoder."""
        return {"type": self.type, "pageId": self.page_id, "name": self.name, "input": self.input}


class ToolCancelRequest(HostRequest):
    """host → worker: abort the page's `signal` of call `call_id` (the `tools.call` request's
    `id`). Reply: `result` with `{cancelled: bool}` (false when the call had already ended)."""

    type: Literal["tools.cancel"] = "tools.cancel"
    DEADLINE_MS: ClassVar[int] = TOOLS_CANCEL_DEADLINE_MS
    call_id: str


AnyHostRequest = Annotated[
    CurrentRequest | LocationRequest | PageReadRequest | ToolCallRequest | ToolCancelRequest | PingRequest,
    Field(discriminator="type"),
]
"""Every host → worker request, told apart by `type`."""

HOST_REQUEST_ADAPTER: Final[
    TypeAdapter[
        CurrentRequest | LocationRequest | PageReadRequest | ToolCallRequest | ToolCancelRequest | PingRequest
    ]
] = TypeAdapter(AnyHostRequest)
"""Parses a request without its `id` (the hand-off carries them so, protocol/handoff.py); raises
pydantic.ValidationError on a wrong shape or an unknown `type`."""


class ToolCallReply(IncomingFrame):
    """The `result` of `tools.call`: `ok` with the page's result string (`text`; None when the
    call navigated the page), or not `ok` with the page's `error` message (execute threw, the result
    was not serialisable, the call was aborted)."""

    ok: bool
    text: str | None = None
    error: str = ""


BrowserFrame = Annotated[
    Hello | ResultFrame | ErrorFrame | ToolsChanged | TreePush, Field(discriminator="type")
]
"""Every frame the worker may send to the host."""


BROWSER_FRAME_ADAPTER: Final[
    TypeAdapter[Hello | ResultFrame | ErrorFrame | ToolsChanged | TreePush]
] = TypeAdapter(
    BrowserFrame
)
"""Parses one decoded worker → host frame; raises pydantic.ValidationError on a wrong shape."""
