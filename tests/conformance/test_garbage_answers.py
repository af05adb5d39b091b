"""Garbage over the wire: whatever a provider answers, the kit reports fails, never a traceback."""

from __future__ import annotations

import asyncio
import http.server
import json
import os
import socket
from pathlib import Path
from typing import Any

import pytest

from native_host.conformance import check_provider
from tests.conformance.provider import Flaws, serve
from tests.support.pages import served_http

GARBAGE: list[Any] = [
    "a string root",
    [1, 2, {"id": "x"}],
    None,
    {"id": 5, "role": ["Application"], "children": {"not": "a list"}},
    {"id": "app", "role": "Application", "children": [None, 3, "x", [], {"children": [{"focused": "yes"}]}]},
    {"id": "app", "role": "Application", "content": [{"type": "image"}, "text", None], "hovered": 1},
    {"id": "app", "role": "Application", "children": [{"id": "w", "role": "Window", "visible": "no"}]},
]


@pytest.mark.rule("current.elements")
@pytest.mark.rule("current.single_application")
async def test_garbage_trees_are_fails_not_tracebacks(tmp_path: Path) -> None:
    flaws = Flaws()
    async with serve(tmp_path / "providers", flaws) as provider:
        for garbage in GARBAGE:
            flaws.answer = lambda answer, garbage=garbage: answer.update(root=garbage)
            report = await check_provider(provider.descriptor_path, timeout_s=5.0)
            assert "current.elements" in report.failed_rules() or "current.single_application" in (
                report.failed_rules()
            ), garbage
            assert all("could not judge" not in r.message for r in report.results), garbage
            assert report.result("current.answers").status == "pass"


@pytest.mark.rule("current.fields")
async def test_an_empty_answer_fails_current_fields(tmp_path: Path) -> None:
    flaws = Flaws(answer=lambda answer: answer.clear())
    async with serve(tmp_path / "providers", flaws) as provider:
        report = await check_provider(provider.descriptor_path, timeout_s=5.0)
    assert report.result("current.fields").status == "fail"


def _descriptor(folder: Path, endpoint: str) -> Path:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = folder / "org.example.Nothing-1.json"
    data = {
        "protocol": "0.2.0",
        "bundleId": "org.example.Nothing",
        "name": "Nothing",
        "version": "1",
        "pid": os.getpid(),
        "instance": "i",
        "endpoint": endpoint,
        "token": "t",
    }
    path.write_text(json.dumps(data))
    path.chmod(0o600)
    return path


@pytest.mark.rule("descriptor.listener_process")
@pytest.mark.rule("mcp.era_2025")
async def test_a_port_nobody_listens_on_gives_fails_not_a_hang(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    path = _descriptor(tmp_path / "providers", f"http://127.0.0.1:{port}/mcp")
    async with asyncio.timeout(20):
        report = await check_provider(path, timeout_s=2.0)
    assert {"descriptor.listener_process", "security.origin_403", "mcp.era_2025", "mcp.era_2026"} <= (
        report.failed_rules()
    )
    assert report.result("current.answers").status == "skip"


class _Garbage(http.server.BaseHTTPRequestHandler):
    def _answer(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<html>not MCP</html>")

    do_GET = do_POST = do_DELETE = _answer

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.mark.rule("security.origin_403")
@pytest.mark.rule("mcp.era_2026")
async def test_an_endpoint_that_answers_html_gives_fails_not_a_traceback(tmp_path: Path) -> None:
    with served_http(_Garbage) as url:
        path = _descriptor(tmp_path / "providers", f"{url}/x")
        async with asyncio.timeout(20):
            report = await check_provider(path, timeout_s=2.0)
    assert {
        "security.origin_403",
        "security.bearer_401",
        "mcp.era_2025",
        "mcp.era_2026",
    } <= report.failed_rules()
    assert all("could not judge" not in r.message for r in report.results)
