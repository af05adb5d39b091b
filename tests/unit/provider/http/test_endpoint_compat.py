"""The real provider endpoint (SDK app behind the guard) as Electron-based MCP clients reach it
(design.md §1 "Request checks", issue #8): raw HTTP probes with httpx."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest

from native_host.provider.http.endpoint import McpEndpoint
from tests.support.asgi import INITIALIZE
from tests.support.requester import FakeRequester

ELECTRON = {
    "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Cursor/1.7.0 Chrome/138.0.7204.251 Electron/37.7.0 Safari/537.36",
    "Sec-Fetch-Site": "cross-site",
    "Sec-Fetch-Mode": "cors",
    "Sec-Fetch-Dest": "empty",
    "Accept": "application/json, text/event-stream",
}


@pytest.fixture
async def endpoint() -> AsyncIterator[McpEndpoint]:
    extension = FakeRequester(default={"root": {"id": "app", "role": "Application"}})
    endpoint = McpEndpoint(extension, instance="probe-instance")
    async with asyncio.timeout(10):
        await endpoint.start()
    yield endpoint
    async with asyncio.timeout(5):
        await endpoint.stop()


async def test_an_electron_client_without_origin_gets_through(endpoint: McpEndpoint) -> None:
    headers = {**ELECTRON, "Authorization": f"Bearer {endpoint.token}"}
    async with httpx.AsyncClient(timeout=10) as http, http.stream(
        "POST", endpoint.url, json=INITIALIZE, headers=headers
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers.get("mcp-session-id")


async def test_an_electron_client_with_origin_gets_403_naming_the_header(endpoint: McpEndpoint) -> None:
    headers = {**ELECTRON, "Authorization": f"Bearer {endpoint.token}", "Origin": "vscode-file://vscode-app"}
    async with httpx.AsyncClient(timeout=10) as http:
        response = await http.post(endpoint.url, json=INITIALIZE, headers=headers)
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["data"] == {"header": "Origin", "value": "vscode-file://vscode-app"}
    assert endpoint.token not in response.text


async def test_an_electron_client_without_the_token_is_told_where_it_is(endpoint: McpEndpoint) -> None:
    async with httpx.AsyncClient(timeout=10) as http:
        response = await http.post(endpoint.url, json=INITIALIZE, headers=ELECTRON)
    assert response.status_code == 401
    assert "descriptor" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("what", "path", "body", "content_type", "status", "code"),
    [
        ("unknown path", "/nope", json.dumps(INITIALIZE).encode(), "application/json", 404, -32600),
        ("wrong Content-Type", "", b"{}", "text/plain", 400, -32600),
        ("body too large", "", b"x" * (5 * 1024 * 1024), "application/json", 413, -32600),
        ("a batch", "", json.dumps([INITIALIZE]).encode(), "application/json", 400, -32600),
        ("[]", "", b"[]", "application/json", 400, -32600),
        ("null", "", b"null", "application/json", 400, -32600),
        ("not JSON", "", b"{not", "application/json", 400, -32700),
    ],
)
async def test_every_error_body_is_one_short_json_rpc_error(
    endpoint: McpEndpoint, what: str, path: str, body: bytes, content_type: str, status: int, code: int
) -> None:
    url = endpoint.url.rsplit("/mcp", 1)[0] + path if path else endpoint.url
    headers = {**ELECTRON, "Authorization": f"Bearer {endpoint.token}", "Content-Type": content_type}
    async with httpx.AsyncClient(timeout=10) as http:
        response = await http.post(url, content=body, headers=headers)
    assert response.status_code == status, what
    assert response.headers["content-type"] == "application/json"
    assert "\n" not in response.text and len(response.text) < 400, response.text
    assert "pydantic" not in response.text and "input_value" not in response.text
    answer = response.json()
    assert answer["jsonrpc"] == "2.0" and answer["id"] is None
    assert answer["error"]["code"] == code and answer["error"]["message"]


@pytest.mark.parametrize("suffix", ["/mcp", "/", "x"])
async def test_a_client_that_appends_to_the_path_is_told_the_published_path_and_to_use_the_bridge(
    endpoint: McpEndpoint, suffix: str
) -> None:
    """fast-agent appends `/mcp` to the URL it is given: the token holder's 404 names the path
    from the descriptor and says why `webctx mcp` is the lasting fix; a caller without the token
    (or with an Origin) still gets the 401 (403) first, and never the path."""
    url = endpoint.url + suffix
    token = {"Authorization": f"Bearer {endpoint.token}"}
    async with httpx.AsyncClient(timeout=10, follow_redirects=False) as http:
        found = await http.post(url, json=INITIALIZE, headers={**ELECTRON, **token})
        anonymous = await http.post(url, json=INITIALIZE, headers=ELECTRON)
        page = await http.post(url, json=INITIALIZE, headers={**ELECTRON, **token, "Origin": "https://a.example"})
    if suffix == "/" and found.status_code != 404:  # a trailing slash may be redirected to the path
        assert found.status_code in (307, 308) and endpoint.token not in found.text
        return
    assert found.status_code == 404
    message = found.json()["error"]["message"]
    assert endpoint.path in message and "`webctx mcp`" in message and "browser restart" in message
    assert message.startswith("Not found: ") and "\n" not in message and len(message) <= 300
    assert endpoint.token not in found.text
    assert (anonymous.status_code, page.status_code) == (401, 403)
    assert endpoint.path not in anonymous.text + page.text
