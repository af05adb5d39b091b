"""`webctx read ID [--screenshot] [--out FILE]`: a page's readable text (Markdown) or a screenshot of
its tab, read through the provider's MCP resources as a desktop host reads them (docs/hosts.md
"Page resources").

ID is a Page id as `webctx context` prints it (`tab-3`), made into
`webctx://<instance>/<id>/text|screenshot` with the chosen provider's instance (its descriptor), or
a whole `webctx://` page URI as a `current` answer links it. A page URI only goes to the provider
running its instance (HostClient.read_resource). Errors are one line: the provider's reason word and
what happened (`gone: …`), then the one thing the person at the terminal can do (READ_FIXES), which
replaces the provider's fix for an MCP client (protocol/resources.py READ_ERROR_FIXES).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import binascii
import sys
from pathlib import Path
from typing import Any, Final

from mcp import types

from native_host.cli.arguments import positive_seconds
from native_host.cli.render import MAX_ID_CHARS, shorten
from native_host.cli.result import Result
from native_host.errors import WebctxError
from native_host.host import READ_TIMEOUT_S, HostClient
from native_host.protocol.resources import (
    READ_ERROR_FIXES,
    REASON_WORDS,
    SCREENSHOT,
    TEXT,
    PageKind,
    format_page_uri,
    format_size,
    parse_page_uri,
)

READ_FIXES: Final[dict[str, str]] = {
    REASON_WORDS["page_gone"]: "Run `webctx context` for the pages open now.",
    REASON_WORDS["unknown_page"]: "Run `webctx context` for the pages open now.",
    REASON_WORDS["switched_off"]: "Switch it on there, then try again.",
    REASON_WORDS["not_shared"]: "Choose another page from `webctx context`.",
    REASON_WORDS["read_failed"]: "Try again once the page has loaded, or reload the tab.",
    REASON_WORDS["not_capturable"]: (
        "Bring the tab to the front of a visible window and try again, "
        "or read its text (without --screenshot)."
    ),
    "timeout": "Try again in a moment.",
    "mcp_error": "Check that the webctx extension and this command are up to date (`webctx doctor`).",
}
"""Reason word (protocol/resources.py REASON_WORDS; `mcp_error`: the provider named none) → what the
person at the terminal can do, in place of the provider's fix (READ_ERROR_FIXES, for an MCP client)."""

HELP = "print a page's readable text (Markdown), or save a screenshot of its tab (--screenshot --out FILE)"
DESCRIPTION = """\
Act as a desktop host: find the provider like `webctx context` does, connect over MCP with its
bearer token and read one of the page's resources: its readable text as Markdown,
extracted in the page at read time (at most 256 KiB; a first line says when it was cut), or, with
--screenshot, an image of the visible part of its tab (only when the user switched screenshots on
in the webctx options page, and only of the active tab of a visible window).

ID is a Page id as `webctx context` prints it (tab-3), or a whole webctx:// page URI from a
`current` answer. The text is printed with terminal control characters shown as escapes; --out
FILE writes the exact text, or the image, to FILE instead, like a shell redirection would
(created or replaced, a symlink followed). Without --out, --screenshot writes the image to
stdout only when stdout is not a terminal (e.g. `webctx read tab-3 --screenshot > tab.png`).
--json prints the exact resources/read result ({contents: [{uri, mimeType, text | blob, _meta}]}).

  webctx read tab-3
  webctx read tab-3 --screenshot --out tab.png
"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `read` on `subparsers` (argparse's `_SubParsersAction`)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "read", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "id", metavar="ID", help="a Page id from `webctx context` (tab-3), or a webctx:// page URI"
    )
    parser.add_argument(
        "--screenshot", action="store_true", help="read a screenshot of the tab instead of the page's text"
    )
    parser.add_argument("--out", metavar="FILE", type=Path, help="write the text or the image to FILE")
    parser.add_argument("--pid", type=int, help="pid of the browser to ask (its main process)")
    parser.add_argument("--json", action="store_true", help="print the exact resources/read result as JSON")
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=READ_TIMEOUT_S,
        metavar="SECONDS",
        help=f"time limit for connecting and for the read (default {READ_TIMEOUT_S:g}: extracting "
        "a large page's text may take the browser up to 10 s)",
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> Result:
    """Read once and print (or write --out). Raises WebctxError (caught in main): a bad ID
    (`bad_arguments`), an image for a terminal, no provider, the provider's refusal (READ_FIXES)."""
    kind: PageKind = SCREENSHOT if args.screenshot else TEXT
    wanted_uri = args.id if args.id.startswith("webctx:") else None
    if wanted_uri is None:
        check_page_id(args.id)
    else:
        kind = uri_kind(wanted_uri, screenshot=args.screenshot)
    if kind == SCREENSHOT and not args.json and args.out is None and sys.stdout.isatty():
        raise WebctxError(
            "A screenshot is an image, and stdout is a terminal; pass --out FILE (e.g. --out tab.png).",
            code="bad_arguments",
        )
    client = HostClient(timeout_s=args.timeout)
    try:
        result = asyncio.run(_read(client, args.id, wanted_uri, kind, args.pid))
    except WebctxError as exc:
        if exc.code not in READ_FIXES:
            raise  # no provider, no answer in time: those sentences end with their fix already
        raise with_fix(exc) from None
    contents = result.contents[0] if result.contents else None
    if contents is None:
        raise WebctxError("The provider answered the read with no contents; try again.", code="empty_read")
    data = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    if args.out is not None:
        size = write_out(args.out, contents)
        what = "image" if isinstance(contents, types.BlobResourceContents) else "text"
        mime = contents.mime_type or "unknown type"
        return Result(text=f"Wrote the {what} ({mime}, {format_size(size)}) to {args.out}.", data=data)
    if isinstance(contents, types.BlobResourceContents):
        if args.json:
            return Result(text="", data=data)
        sys.stdout.buffer.write(_decoded(contents))
        sys.stdout.flush()
        return Result(text="", data=data, printed=True)
    return Result(text=contents.text, data=data)


def uri_kind(text: str, *, screenshot: bool) -> PageKind:
    """The kind of page URI `text` (protocol/resources.py); with `screenshot` (--screenshot) it must
    be a screenshot URI. Raises WebctxError (`bad_arguments`) otherwise, ending with the fix."""
    page = parse_page_uri(text)
    if page is None:
        raise WebctxError(
            f"{shorten(text, MAX_ID_CHARS)} is not a webctx page resource (webctx://<instance>/<page>/text "
            "or …/screenshot). Pass a Page id as `webctx context` prints it (e.g. tab-3), or a link from it.",
            code="bad_arguments",
        )
    if screenshot and page.kind != SCREENSHOT:
        raise WebctxError(
            f"{shorten(text, MAX_ID_CHARS)} is the page's text, not its screenshot; pass the page id "
            f"({page.page_id}) with --screenshot, or leave out --screenshot.",
            code="bad_arguments",
        )
    return page.kind


def check_page_id(page_id: str) -> None:
    """Raises WebctxError (`bad_arguments`) when `page_id` cannot be a Page id (the URI rule's part,
    protocol/resources.py: 1-128 of `[A-Za-z0-9_-]`)."""
    try:
        format_page_uri("x", page_id, TEXT)
    except ValueError:
        raise WebctxError(
            f"{shorten(page_id, MAX_ID_CHARS)!r} is not a Page id. Pass one as `webctx context` prints it "
            "(e.g. tab-3), or a webctx:// page URI.",
            code="bad_arguments",
        ) from None


def with_fix(exc: WebctxError) -> WebctxError:
    """`exc` as one line: what happened, then READ_FIXES' sentence for its reason word (`.code`) in
    place of the provider's fix for an MCP client (READ_ERROR_FIXES; a provider of another version
    may word it differently, and then its words are kept whole); same `.code`."""
    message = " ".join(exc.message.split())
    fix = READ_FIXES.get(exc.code, "")
    if not fix or message.endswith(fix):
        return WebctxError(message, code=exc.code)
    theirs = READ_ERROR_FIXES.get(exc.code, "")
    if theirs and message.endswith(" " + theirs):
        message = message[: -len(theirs) - 1]
    return WebctxError(f"{message.rstrip()} {fix}", code=exc.code)


async def _read(
    client: HostClient, given: str, uri: str | None, kind: PageKind, pid: int | None
) -> types.ReadResourceResult:
    if uri is None:  # a Page id: this provider's instance makes it a URI
        descriptor = client.choose(pid)
        uri = format_page_uri(descriptor.instance, given, kind)
        pid = descriptor.pid
    return await client.read_resource(uri, pid, timeout_s=client.timeout_s)


def _decoded(contents: types.BlobResourceContents) -> bytes:
    try:
        return base64.b64decode(contents.blob, validate=True)
    except (binascii.Error, ValueError):
        raise WebctxError(
            "The provider sent an image that is not valid base64; nothing was written. Try again.",
            code="bad_image",
        ) from None


def write_out(path: Path, contents: types.TextResourceContents | types.BlobResourceContents) -> int:
    """Write `contents` to `path` as a shell redirection would (created or replaced, a symlink
    followed, the umask's permissions): the image's bytes, or the text as UTF-8 exactly as read.
    Returns the number of bytes written. Raises WebctxError (`write_failed`) naming the file."""
    data = _decoded(contents) if isinstance(contents, types.BlobResourceContents) else contents.text.encode()
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise WebctxError(
            f"Could not write {path}: {exc.strerror or exc}. Pass --out a file you can write.",
            code="write_failed",
        ) from None
    return len(data)
