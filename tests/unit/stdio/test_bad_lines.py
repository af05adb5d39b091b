"""`webctx mcp` answers stdin lines that are not JSON-RPC (bad_lines.py; JSON-RPC 2.0 §5)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import mcp_types as types
import pytest
from pydantic import ValidationError

from native_host.stdio.bad_lines import INVALID_REQUEST_MESSAGE, PARSE_ERROR_MESSAGE, error_for

WEBCTX = Path(sys.executable).with_name("webctx")


def _transport_error(line: str) -> Exception:
    """The exception the SDK's stdio transport puts on the read stream for `line`."""
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception as exc:
        return exc
    raise AssertionError(f"{line!r} parsed")


@pytest.mark.parametrize(
    ("line", "code"),
    [("garbage", -32700), ('{"jsonrpc":', -32700), ("\ufffd\ufffd", -32700), ("[]", -32600),
     ("null", -32600), ('[{"jsonrpc":"2.0","id":1,"method":"ping"}]', -32600), ('{"a":1}', -32600)],
)
def test_a_line_that_is_not_json_is_a_parse_error_and_other_json_an_invalid_request(
    line: str, code: int
) -> None:
    exc = _transport_error(line)
    assert isinstance(exc, ValidationError)
    error = error_for(exc)
    assert error.id is None and error.error.code == code
    assert error.error.message == (PARSE_ERROR_MESSAGE if code == -32700 else INVALID_REQUEST_MESSAGE)
    assert json.loads(error.model_dump_json(by_alias=True, exclude_unset=True))["id"] is None


def test_webctx_mcp_answers_garbage_lines_logs_one_line_without_content_and_goes_on() -> None:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}
    secret = "SECRET-PAGE-TEXT"
    lines = [
        f"not json {secret}",
        "[]",
        json.dumps(init),
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","id":2,"method":"ping"}',
    ]
    with subprocess.Popen(
        [str(WEBCTX), "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=dict(os.environ),
    ) as process:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        try:
            process.stdin.write(("\n".join(lines) + "\n").encode())
            process.stdin.flush()
            answers = [process.stdout.readline() for _ in range(4)]  # a hang is caught by pytest-timeout
            process.stdin.close()
            process.wait(timeout=15)
            stderr = process.stderr.read().decode()
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 0, stderr
    messages = [json.loads(line) for line in answers]
    errors = [m for m in messages if "error" in m]
    assert [(m["id"], m["error"]["code"]) for m in errors] == [(None, -32700), (None, -32600)]
    assert {m["id"] for m in messages if "result" in m} == {1, 2}, "the session went on"
    log_text = (Path(os.environ["XDG_STATE_HOME"]) / "webctx" / "log" / "mcp.log").read_text()
    logged = [line for line in log_text.splitlines() if "not a JSON-RPC message" in line]
    assert len(logged) == 2
    assert secret not in log_text and secret not in stderr
