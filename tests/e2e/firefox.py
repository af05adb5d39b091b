"""Firefox ESR driven through Marionette (its built-in remote protocol), with no extra packages.

Marionette speaks `<length>:<json>` over TCP on 127.0.0.1; a command is `[0, id, name, params]`
and its reply `[1, id, error, result]` (firefox-source-docs, "Marionette protocol"). With the pref
`marionette.port` = 0 Firefox picks a free port and writes it to `<profile>/MarionetteActivePort`.
`Addon:Install` with `temporary: true` loads an unsigned, unpacked extension, as about:debugging's
"Load Temporary Add-on" does.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

FIREFOX = os.environ.get("WEBCTX_TEST_FIREFOX") or shutil.which("firefox-esr") or shutil.which("firefox")

EXTENSION_UUID = "5f1f0c1e-8d1b-4c1e-9a0e-2b7c3e9d4a11"
"""The internal UUID pinned for the webctx build (`extensions.webextensions.uuids`)."""

PREFS = {
    "marionette.port": 0,
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.update.auto": False,
    "app.normandy.enabled": False,
    "extensions.getAddons.cache.enabled": False,
    "extensions.update.enabled": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "services.settings.server": "http://127.0.0.1:9/",
    "extensions.webextensions.uuids": json.dumps({"webctx@webctx.dev": EXTENSION_UUID}),
}
"""Prefs for a quiet test profile: Marionette on a free port, nothing fetched from the network, and
the extension's internal UUID pinned so its pages have a known moz-extension:// address."""

EXTENSION_BASE = f"moz-extension://{EXTENSION_UUID}/"
"""Where the webctx build's pages are, given the pinned UUID above."""

ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf"
"""The WebDriver element reference key in Marionette's replies."""


class Marionette:
    """One Marionette connection; `command(name, params)` returns the result or raises RuntimeError."""

    def __init__(self, port: int, timeout_s: float = 30.0) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout_s)
        self.buffer = b""
        self.next_id = 1
        self._read()  # the greeting: {"applicationType": "gecko", "marionetteProtocol": 3}

    def _read(self) -> Any:
        while b":" not in self.buffer:
            self._fill()
        length, rest = self.buffer.split(b":", 1)
        self.buffer = rest
        while len(self.buffer) < int(length):
            self._fill()
        body, self.buffer = self.buffer[: int(length)], self.buffer[int(length) :]
        return json.loads(body)

    def _fill(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("Marionette closed the connection")
        self.buffer += chunk

    def command(self, name: str, params: dict[str, Any] | None = None) -> Any:
        """Send one command and wait (bounded by the socket timeout) for its reply."""
        message_id = self.next_id
        self.next_id += 1
        data = json.dumps([0, message_id, name, params or {}]).encode()
        self.sock.sendall(str(len(data)).encode() + b":" + data)
        while True:
            reply = self._read()
            if reply[0] == 1 and reply[1] == message_id:
                if reply[2]:
                    raise RuntimeError(f"Marionette {name} failed: {reply[2]}")
                return reply[3]

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


def start_firefox(profile: Path, *, timeout_s: float = 45.0) -> tuple[subprocess.Popen[bytes], Marionette]:
    """Start headless Firefox on a fresh `profile` with Marionette; return the process and a session."""
    assert FIREFOX is not None
    profile.mkdir(parents=True, exist_ok=True)
    (profile / "user.js").write_text(
        "".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in PREFS.items())
    )
    process = subprocess.Popen(
        [FIREFOX, "--headless", "--marionette", "-remote-allow-system-access", "--no-remote",
         "--profile", str(profile), "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ),
    )
    port_file = profile / "MarionetteActivePort"
    deadline = time.monotonic() + timeout_s
    while True:
        with contextlib.suppress(OSError, ValueError):
            port = int(port_file.read_text().strip())
            if port:
                break
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"Firefox did not start Marionette within {timeout_s} s")
        time.sleep(0.1)
    session = Marionette(port)
    session.command("WebDriver:NewSession", {"capabilities": {}})
    return process, session


def stop_firefox(process: subprocess.Popen[bytes], session: Marionette) -> None:
    """Quit Firefox (bounded: killed after 10 s)."""
    with contextlib.suppress(Exception):
        session.command("Marionette:Quit", {"flags": ["eForceQuit"]})
    session.close()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)
