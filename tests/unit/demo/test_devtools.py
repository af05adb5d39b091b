"""`webctx demo` loads the extension over the DevTools pipe (demo/devtools.py):
against a stand-in browser that speaks the pipe protocol on fds 3 and 4 (NUL-separated JSON), a
browser too old for `Extensions.loadUnpacked` is a clear error naming it and its version, and a
browser that answers nothing is one too. The real browser: tests/e2e/test_demo_devtools_pipe.py."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from native_host.demo import devtools
from native_host.demo.devtools import DevToolsError, DevToolsPipe
from native_host.demo.runner import launch_demo
from native_host.errors import WebctxError

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the DevTools pipe is POSIX-only")

FAKE_BROWSER = """\
import json, os, sys, time
answers = {answers!r}
seen = []
buffer = b""
while True:
    chunk = os.read(3, 65536)
    if not chunk:
        break
    buffer += chunk
    while b"\\0" in buffer:
        raw, buffer = buffer.split(b"\\0", 1)
        message = json.loads(raw)
        seen.append(message["method"])
        with open({log!r}, "w") as log:
            json.dump({{"seen": seen, "argv": sys.argv[1:]}}, log)
        answer = answers.get(message["method"])
        if answer is None:
            continue  # never answers: the caller's time limit
        os.write(4, b'{{"method":"Target.targetCreated","params":{{}}}}\\0')  # an event first
        os.write(4, json.dumps({{"id": message["id"], **answer}}).encode() + b"\\0")
time.sleep(60)
"""


def fake_browser(folder: Path, answers: dict[str, object]) -> tuple[Path, Path]:
    """An executable named like Chrome that answers `answers[method]` on the pipe; its log file."""
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "seen.json"
    script = folder / "google-chrome"
    script.write_text(f"#!{sys.executable}\n" + FAKE_BROWSER.format(answers=answers, log=str(log)))
    script.chmod(0o755)
    return script, log


OLD_CHROME = {
    "Browser.getVersion": {"result": {"product": "Chrome/120.0.6099.109", "protocolVersion": "1.3"}},
    "Extensions.loadUnpacked": {
        "error": {"code": -32601, "message": "'Extensions.loadUnpacked' wasn't found"}  # Chromium's words
    },
}


def test_a_browser_without_load_unpacked_is_an_error_naming_it_and_its_version(tmp_path: Path) -> None:
    browser, log = fake_browser(tmp_path / "old", OLD_CHROME)
    started = time.monotonic()
    with pytest.raises(WebctxError) as raised, launch_demo(str(browser), progress=lambda _: None):
        pass
    message = raised.value.message
    assert raised.value.code == "extension_not_loaded"
    assert str(browser) in message and "Chrome/120.0.6099.109" in message
    assert "'Extensions.loadUnpacked' wasn't found" in message
    assert time.monotonic() - started < 10, "an answer, not the time limit"
    seen = json.loads(log.read_text())
    assert seen["seen"] == ["Browser.getVersion", "Extensions.loadUnpacked"]
    assert "--remote-debugging-pipe" in seen["argv"]
    assert not [a for a in seen["argv"] if a.startswith("--load-extension")]
    assert not list(tmp_path.glob("webctx-demo-*"))


def test_a_browser_that_never_answers_on_the_pipe_is_an_error_not_a_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(devtools, "DEVTOOLS_TIMEOUT_S", 1.0)
    browser, _ = fake_browser(tmp_path / "mute", {})
    started = time.monotonic()
    with pytest.raises(WebctxError, match=r"did not answer on the DevTools pipe"), launch_demo(
        str(browser), progress=lambda _: None
    ):
        pass
    assert time.monotonic() - started < 30


def test_the_pipe_reports_a_closed_browser_as_an_error(tmp_path: Path) -> None:
    pipe = DevToolsPipe.open()
    try:
        assert pipe.child_read is not None
        os.close(pipe.child_read)  # nobody will ever read: the write fails with EPIPE
        pipe.child_read = None
        assert pipe.child_write is not None
        os.close(pipe.child_write)
        pipe.child_write = None
        with pytest.raises(DevToolsError, match="closed its DevTools pipe"):
            pipe.call("Browser.getVersion", timeout_s=1)
    finally:
        pipe.close()
