"""security.py: the loopback guard on a real uvicorn at 127.0.0.1, driven with httpx (design.md §1)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from native_host.provider.http import security
from native_host.provider.http.security import LoopbackGuard
from tests.support.asgi import loopback_socket, serving_asgi

TOKEN = "good-token_0123456789abcdefghijklmnopqrstuv"


async def hello_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The app behind the guard: 200 "ok" to every HTTP request."""
    assert scope["type"] == "http"
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"ok"})


@dataclass
class Served:
    port: int
    url: str


@pytest.fixture
async def served() -> AsyncIterator[Served]:
    sock = loopback_socket()
    port = sock.getsockname()[1]
    async with serving_asgi(LoopbackGuard(hello_app, port=port, token=TOKEN), sock, lifespan="off"):
        yield Served(port, f"http://127.0.0.1:{port}/mcp/path")


def bearer(token: str = TOKEN) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_a_good_request_passes_through(served: Served) -> None:
    async with httpx.AsyncClient() as client:
        response = await client.post(served.url, headers=bearer(), json={})
    assert (response.status_code, response.text) == (200, "ok")


async def test_origin_header_is_refused_before_the_token_is_read(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    def token_must_not_be_read(authorization: bytes, token: bytes) -> bool:
        raise AssertionError("the token was looked at")

    monkeypatch.setattr(security, "token_matches", token_must_not_be_read)
    async with httpx.AsyncClient() as client:
        for headers in (
            {"Origin": "http://localhost:5173", **bearer()},
            {"Origin": "null"},
            {"Origin": "https://evil.example", "Host": "evil.example", **bearer("wrong")},
        ):
            response = await client.post(served.url, headers=headers, json={})
            assert response.status_code == 403
            assert "Origin" in response.text
            assert headers["Origin"] in response.json()["error"]["message"]
            assert "www-authenticate" not in response.headers


@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1", "localhost", "127.0.0.1:1", "[::1]:{port}"])
async def test_a_host_other_than_loopback_with_our_port_gets_421(served: Served, host: str) -> None:
    async with httpx.AsyncClient() as client:
        response = await client.post(
            served.url, headers={"Host": host.format(port=served.port), **bearer()}, json={}
        )
    assert response.status_code == 421
    assert f"127.0.0.1:{served.port}" in response.text


async def test_localhost_with_our_port_is_accepted(served: Served) -> None:
    async with httpx.AsyncClient() as client:
        response = await client.post(served.url, headers={"Host": f"localhost:{served.port}", **bearer()})
    assert response.status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        {},
        bearer("wrong"),
        bearer(TOKEN + "x"),
        bearer(TOKEN[:-1]),
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": TOKEN},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer ünïcode".encode()},
    ],
)
async def test_missing_or_wrong_bearer_token_gets_401(served: Served, headers: dict[str, Any]) -> None:
    async with httpx.AsyncClient() as client:
        response = await client.post(served.url, headers=headers, json={})
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert "descriptor" in response.text
    assert TOKEN not in response.text


async def test_token_only_in_the_query_string_gets_401(served: Served) -> None:
    async with httpx.AsyncClient() as client:
        for name in ("token", "access_token", "auth"):
            response = await client.post(served.url, params={name: TOKEN}, json={})
            assert response.status_code == 401


async def test_bearer_scheme_is_case_insensitive_and_sec_fetch_headers_are_accepted(served: Served) -> None:
    async with httpx.AsyncClient() as client:
        response = await client.post(
            served.url,
            headers={
                "Authorization": f"bEaReR {TOKEN}",
                "Sec-Fetch-Site": "cross-site",
                "Sec-Fetch-Mode": "cors",
                "Sec-Fetch-Dest": "empty",
            },
        )
    assert response.status_code == 200


async def test_two_authorization_headers_are_refused(served: Served) -> None:
    async with httpx.AsyncClient() as client:
        response = await client.post(
            served.url, headers=[("Authorization", f"Bearer {TOKEN}"), ("Authorization", "Bearer wrong")]
        )
    assert response.status_code == 401


async def test_bad_requests_do_not_starve_a_good_client(served: Served) -> None:
    bad_headers: list[dict[str, str]] = [
        {"Origin": "https://evil.example", **bearer()},
        {"Host": "evil.example", **bearer()},
        bearer("wrong"),
        {},
    ]
    expected = [403, 421, 401, 401]
    good_statuses: list[int] = []
    bad_done = asyncio.Event()

    async def good_client() -> None:
        async with httpx.AsyncClient() as client:
            while not bad_done.is_set() or len(good_statuses) < 5:
                response = await client.post(served.url, headers=bearer(), json={})
                good_statuses.append(response.status_code)

    async def bad_client() -> list[int]:
        statuses = []
        async with httpx.AsyncClient() as client:
            for i in range(50):
                response = await client.post(served.url, headers=bad_headers[i % 4], json={})
                statuses.append(response.status_code)
        bad_done.set()
        return statuses

    async with asyncio.timeout(20):
        bad_statuses, _ = await asyncio.gather(bad_client(), good_client())
    assert bad_statuses == [expected[i % 4] for i in range(50)]
    assert good_statuses and set(good_statuses) == {200}


async def test_lifespan_scopes_pass_through() -> None:
    seen: list[str] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append(scope["type"])

    await LoopbackGuard(app, port=1, token=TOKEN)({"type": "lifespan"}, None, None)  # type: ignore[arg-type]
    assert seen == ["lifespan"]


ELECTRON_UA = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Claude/0.14.10 Chrome/138.0.7204.100 Electron/37.2.1 Safari/537.36"
)


async def test_an_electron_client_with_sec_fetch_headers_and_no_origin_is_accepted(served: Served) -> None:
    """Issue #8: Electron-based clients add `Sec-Fetch-*` to every request and cannot remove them."""
    async with httpx.AsyncClient() as client:
        response = await client.post(
            served.url,
            headers={
                **bearer(),
                "User-Agent": ELECTRON_UA,
                "Sec-Fetch-Site": "none",
                "Sec-Fetch-Mode": "no-cors",
                "Sec-Fetch-Dest": "empty",
                "Accept": "application/json, text/event-stream",
            },
            json={},
        )
    assert (response.status_code, response.text) == (200, "ok")


async def test_the_403_body_names_the_origin_header_and_its_value(served: Served) -> None:
    async with httpx.AsyncClient() as client:
        response = await client.post(
            served.url,
            headers={**bearer(), "Origin": "app://claude", "User-Agent": ELECTRON_UA, "Sec-Fetch-Mode": "a"},
            json={},
        )
    assert response.status_code == 403
    assert response.headers["content-type"] == "application/json"
    assert len(response.content) < 400, "a short body"
    error = response.json()["error"]
    assert error["data"] == {"header": "Origin", "value": "app://claude"}
    assert "Origin: app://claude" in error["message"]


@pytest.mark.parametrize(
    ("headers", "why"),
    [
        ({}, "no Authorization header"),
        (bearer("wrong"), "wrong token"),
        ({"Authorization": f"Basic {TOKEN}"}, "the scheme is not Bearer"),
    ],
)
async def test_401_and_its_log_line_say_why_without_the_token(
    served: Served, headers: dict[str, str], why: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="native_host.provider.http.security")
    async with httpx.AsyncClient() as client:
        response = await client.post(served.url, headers=headers, json={})
    assert response.status_code == 401
    assert why in response.json()["error"]["message"]
    assert "descriptor" in response.json()["error"]["message"]
    refusals = [r.getMessage() for r in caplog.records if r.name == "native_host.provider.http.security"]
    assert refusals and why in refusals[-1] and "401" in refusals[-1]
    assert all(TOKEN not in line for line in refusals)


async def test_a_refused_origin_is_logged_with_its_value(
    served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="native_host.provider.http.security")
    headers = {**bearer(), "Origin": "https://evil.example"}
    async with httpx.AsyncClient() as client:
        response = await client.post(served.url, headers=headers, json={})
    assert response.status_code == 403
    lines = [r.getMessage() for r in caplog.records if r.name == "native_host.provider.http.security"]
    assert lines and "403" in lines[-1] and "Origin: https://evil.example" in lines[-1]
    assert all(TOKEN not in line for line in lines)
