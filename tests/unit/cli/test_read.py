"""`webctx read ID [--screenshot] [--out FILE]`: the command (`main`) finding a real
`python -m native_host` through the providers folder, the test answering `page.read` as the worker
would (tests/support/page_worker.py). Argument errors are refused before any provider is asked;
the terminal check runs the command as its own process with stdout on a real pseudo-terminal."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import pty
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from native_host.cli import read
from native_host.cli.main import main
from native_host.host import HostClient
from native_host.protocol.resources import format_page_uri
from tests.support.host_process import WAIT_S, Host, descriptors, ready_descriptor
from tests.support.page_worker import (
    PNG_BYTES,
    answer_read,
    error_reply,
    pages_tree,
    push_tree,
    screenshot_result,
    text_result,
)
from tests.unit.provider.conftest import spawn  # noqa: F401  (the fixture: a real native host)

pytestmark = pytest.mark.skipif(os.name != "posix", reason="drives the host over POSIX pipes")

OTHER = "AAAAAAAAAAAAAAAAAAAAAA"
"""An instance no provider runs (a restarted one)."""
MARKDOWN = "# Tides\n\nThe \x1b[2JMoon always shows \u202ethe same face.\n"
"""Page text with a terminal control (clear screen) and a bidi override in it."""


async def started(spawn: Callable[[], Any]) -> tuple[Host, str]:  # noqa: F811
    host: Host = await spawn()
    instance = (await host.hello())["instance"]
    await ready_descriptor(host)
    await push_tree(host, pages_tree(instance, "tab-1"))
    return host, instance


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]) -> Callable[..., Any]:
    """`await cli(host, *args, reply=...)`: run `webctx read ARGS` (`main`, in a thread, as the
    command runs it) against the spawned host, answering its page.read with `reply` (None: expect
    none); returns (exit code, stdout bytes, stderr text, the page.read request or None). The
    host client accepts the descriptor's bundle id: the host's parent is this Python, no browser."""
    def client(**options: Any) -> HostClient:
        return HostClient(identify=lambda process: bundle_id(), front_pid=lambda: None, **options)

    monkeypatch.setattr(read, "HostClient", client)

    async def run(host: Host, *args: str, reply: dict[str, Any] | None = None) -> tuple[int, bytes, str, Any]:
        finished = asyncio.ensure_future(asyncio.to_thread(main, ["read", *args]))
        frame = None
        if reply is not None:  # the read, unless the command ended first (then its stderr says why)
            asked = asyncio.ensure_future(answer_read(host, reply, timeout_s=WAIT_S * 2))
            await asyncio.wait({finished, asked}, return_when=asyncio.FIRST_COMPLETED)
            if not asked.done():
                asked.cancel()
                raise AssertionError(f"webctx read ended without reading: {capsysbinary.readouterr().err!r}")
            frame = asked.result()
        async with asyncio.timeout(WAIT_S * 2):
            code = await finished
        captured = capsysbinary.readouterr()
        return code, captured.out, captured.err.decode(), frame

    return run


def bundle_id() -> str:
    [path] = descriptors()
    return str(json.loads(path.read_text())["bundleId"])


async def test_read_prints_the_text_terminal_safe_and_out_writes_it_exactly(
    spawn: Callable[[], Any], cli: Callable[..., Any], tmp_path: Path  # noqa: F811
) -> None:
    host, instance = await started(spawn)
    code, out, err, asked = await cli(host, "tab-1", reply=text_result(MARKDOWN))
    assert (code, err) == (0, "")
    assert asked is not None and (asked["pageId"], asked["kind"]) == ("tab-1", "text")
    assert out.decode() == "# Tides\n\nThe \\x1b[2JMoon always shows \\u202ethe same face.\n"

    target = tmp_path / "tides.md"
    code, out, err, _ = await cli(host, "tab-1", "--out", str(target), reply=text_result(MARKDOWN))
    assert (code, err) == (0, "")
    assert target.read_bytes() == MARKDOWN.encode()
    assert out.decode() == f"Wrote the text (text/markdown, {len(MARKDOWN.encode())} bytes) to {target}.\n"

    code, out, err, _ = await cli(host, "tab-1", "--json", reply=text_result("# T"))
    assert code == 0, err
    [contents] = json.loads(out)["contents"]
    assert contents == {"uri": format_page_uri(instance, "tab-1", "text"), "mimeType": "text/markdown",
                        "text": "# T", "_meta": {"truncated": False, "bytes": 3, "source": "readability"}}


async def test_read_screenshot_goes_to_a_pipe_or_a_file(
    spawn: Callable[[], Any], cli: Callable[..., Any], tmp_path: Path  # noqa: F811
) -> None:
    host, instance = await started(spawn)
    code, out, err, asked = await cli(host, "tab-1", "--screenshot", reply=screenshot_result())
    assert (code, err, out) == (0, "", PNG_BYTES)
    assert asked is not None and asked["kind"] == "screenshot" and "maxBytes" not in asked

    target = tmp_path / "tab.png"
    uri = format_page_uri(instance, "tab-1", "screenshot")  # a whole URI, from a `current` answer
    code, out, err, _ = await cli(host, uri, "--out", str(target), reply=screenshot_result())
    assert (code, err) == (0, "")
    assert target.read_bytes() == PNG_BYTES
    assert out.decode() == f"Wrote the image (image/png, {len(PNG_BYTES)} bytes) to {target}.\n"


async def test_the_providers_refusals_are_one_line_ending_with_what_to_do(
    spawn: Callable[[], Any], cli: Callable[..., Any]  # noqa: F811
) -> None:
    host, _ = await started(spawn)
    off = error_reply("switched_off", "page text is switched off")
    code, out, err, _ = await cli(host, "tab-1", reply=off)
    assert (code, out) == (1, b"")
    # What happened, then the terminal's fix in place of the MCP client's (said once, not twice).
    assert err == "webctx: switched_off: page text is switched off. Switch it on there, then try again.\n"

    shot = error_reply("not_capturable", "the tab is not the active tab of a visible window")
    code, out, err, _ = await cli(host, "tab-1", "--screenshot", reply=shot)
    assert (code, out) == (1, b"")
    assert err == ("webctx: not_capturable: the tab is not the active tab of a visible window. Bring the "
                   "tab to the front of a visible window and try again, or read its text (without "
                   "--screenshot).\n")

    code, out, err, _ = await cli(host, "tab-99999", reply=error_reply("unknown_page", "never issued"))
    assert err == "webctx: unknown: never issued. Run `webctx context` for the pages open now.\n"

    code, out, err, _ = await cli(host, format_page_uri(OTHER, "tab-1", "text"))  # nobody is asked
    assert (code, out) == (1, b"")
    assert err.startswith("webctx: gone: ") and "restarted or quit" in err
    assert err.endswith(" Run `webctx context` for the pages open now.\n")
    assert host.frames.empty()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["tab 3"], "webctx: 'tab 3' is not a Page id. Pass one as `webctx context` prints it (e.g. tab-3), "
                    "or a webctx:// page URI.\n"),
        (["webctx://activity"], "webctx: webctx://activity is not a webctx page resource "
                                "(webctx://<instance>/<page>/text or …/screenshot). Pass a Page id as "
                                "`webctx context` prints it (e.g. tab-3), or a link from it.\n"),
        ([f"webctx://{OTHER}/tab-3/text", "--screenshot"],
         f"webctx: webctx://{OTHER}/tab-3/text is the page's text, not its screenshot; pass the page id "
         "(tab-3) with --screenshot, or leave out --screenshot.\n"),
    ],
)
def test_bad_ids_are_refused_before_any_provider_is_asked(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["read", *args]) == 1
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", said)


def test_a_screenshot_is_not_written_to_a_terminal() -> None:
    """Checked before any provider is asked (there is none here): stdout is a real pseudo-terminal."""
    leader, follower = pty.openpty()
    try:
        process = subprocess.run(
            [sys.executable, "-m", "native_host.cli.main", "read", "tab-1", "--screenshot"],
            stdin=subprocess.DEVNULL, stdout=follower, stderr=subprocess.PIPE, timeout=60, check=False,
        )
    finally:
        os.close(follower)
        os.close(leader)
    assert process.returncode == 1
    assert process.stderr.decode() == (
        "webctx: A screenshot is an image, and stdout is a terminal; pass --out FILE (e.g. --out tab.png).\n"
    )


def test_out_writes_like_a_shell_redirection(tmp_path: Path) -> None:
    """A plain write: an existing file is replaced, a symlink is followed."""
    from mcp import types

    from native_host.cli.read import write_out

    real = tmp_path / "real.png"
    real.write_bytes(b"old")
    link = tmp_path / "link.png"
    link.symlink_to(real)
    data = base64.b64encode(PNG_BYTES).decode()
    blob = types.BlobResourceContents(uri="webctx://x/tab-1/screenshot", blob=data)
    assert write_out(link, blob) == len(PNG_BYTES)
    assert real.read_bytes() == PNG_BYTES and link.is_symlink()
