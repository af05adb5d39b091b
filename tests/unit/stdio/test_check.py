"""check.py and `webctx mcp --check`: what the bridge finds, said for people (item 4).

Descriptors name a real listening fake provider (tests/support/fake_provider.py) or a reaped pid;
the verdicts are host.discover's. The CLI runs with the product's bundle-id lookup, which knows no
Python process, so its exit-0 case (a real browser) is in tests/e2e/test_stdio_bridge.py.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest

from native_host import paths
from native_host.cli.main import main
from native_host.errors import ProviderRejected
from native_host.host import ProviderInfo
from native_host.stdio.check import check_bridge, state_of
from tests.support.descriptors import make_descriptor
from tests.support.fake_provider import TOKEN, FakeProvider, fake_provider, same_bundle
from tests.support.processes import reaped_pid


@pytest.fixture
def folder() -> Path:
    """The providers folder of this test (CONTEXT_PROVIDERS_DIR, tests/conftest.py), created 0700."""
    folder = paths.providers_dir()
    folder.mkdir(mode=0o700)
    return folder


def write(folder: Path, name: str, provider: FakeProvider, **overrides: object) -> None:
    """Write `provider`'s descriptor with `overrides` as `folder/name` (mode 0600)."""
    path = folder / name
    path.write_text(json.dumps(provider.descriptor(**overrides).to_wire()))
    path.chmod(0o600)


async def test_a_live_provider_is_ok_and_every_descriptor_is_named_with_its_state(folder: Path) -> None:
    async with fake_provider() as p:
        write(folder, "a-live.json", p)
        write(folder, "b-stale.json", p, pid=reaped_pid(), instance="old")
        write(folder, "c-refused.json", p, endpoint=f"http://localhost:{p.port}{p.path}")
        write(folder, "d-app.json", p, listenerPid=None)  # a native app's provider: not a browser
        report = await check_bridge(identify=same_bundle, front_pid=lambda: None)
    assert report.ok
    assert report.tools == ["current", "echo"]
    assert [state for _info, state, _why in report.states] == ["live", "stale", "refused", "skipped"]
    lines = report.text().splitlines()
    assert lines[0] == f"Providers folder: {folder}, from CONTEXT_PROVIDERS_DIR"
    live = f"  live     Test Host 1.0 (pid {os.getpid()}, a-live.json): passes every check"
    assert lines[1].startswith(live)
    assert lines[2].startswith("  stale    Test Host 1.0 (pid ") and "is no longer running" in lines[2]
    assert lines[3].startswith("  refused  ") and "is not http://127.0.0.1:<port>/" in lines[3]
    assert lines[4].startswith("  skipped  ") and "is not a browser" in lines[4]
    assert lines[5] == (
        f"OK: the bridge uses Test Host 1.0 (pid {os.getpid()}), which lists 2 tool(s): current, echo."
    )
    assert TOKEN not in report.text()


def test_without_a_providers_folder_the_cli_says_where_it_looked_and_exits_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["mcp", "--check"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"Providers folder: {paths.providers_dir()}, from CONTEXT_PROVIDERS_DIR; it does not exist",
        "  no descriptors",
        "Problem: No browser has published a descriptor: the providers folder does not exist.",
        out[3],
    ]
    assert out[3].startswith("Fix: Start the browser with the webctx extension")
    assert "set CONTEXT_PROVIDERS_DIR to that folder" in out[3]


def write_plain(folder: Path, name: str, **fields: object) -> None:
    """Write make_descriptor(**fields) as `folder/name` (mode 0600)."""
    path = folder / name
    path.write_text(json.dumps(make_descriptor(**fields).to_wire()))
    path.chmod(0o600)


def test_only_a_stale_descriptor_exits_1_and_says_to_start_the_browser(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_plain(folder, "gone.json", pid=reaped_pid())
    assert main(["mcp", "--check"]) == 1
    out = capsys.readouterr().out
    assert "  stale    Chromium 156.0.8078.114 (pid " in out
    assert "Problem: None of the 1 descriptor(s) here is a browser provider the bridge can use." in out
    assert "Fix: Start the browser with the webctx extension" in out
    assert "replaces the stale descriptor" in out


def test_a_refused_descriptor_exits_1_and_points_at_its_reason(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The CLI's own bundle-id lookup: this Python process is no Chromium, so it is refused."""
    write_plain(folder, "impostor.json", pid=os.getpid())
    assert main(["mcp", "--check"]) == 1
    out = capsys.readouterr().out
    assert "  refused  Chromium 156.0.8078.114" in out and "is not an app this host knows" in out
    assert "Fix: Do what the refused line above says, then restart the browser." in out


async def test_pid_pins_the_check_as_it_pins_the_bridge(folder: Path) -> None:
    async with fake_provider() as p:
        write(folder, "live.json", p)
        other = reaped_pid()
        report = await check_bridge(pid=other, identify=same_bundle, front_pid=lambda: None)
    assert not report.ok
    assert f"No provider runs as pid {other}" in (report.problem() or "")
    assert report.fix() == f"Start the browser whose main process is pid {other}, or leave out --pid."
    assert f"Pinned to browser pid {other} (--pid)." in report.text()


async def test_a_provider_that_does_not_answer_is_reported_within_the_time_limit(folder: Path) -> None:
    async with fake_provider() as p:
        silent = socket.socket()  # listens (this process), accepts, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        try:
            endpoint = f"http://127.0.0.1:{silent.getsockname()[1]}/mcp/x"
            write(folder, "silent.json", p, endpoint=endpoint)
            report = await check_bridge(identify=same_bundle, front_pid=lambda: None, timeout_s=0.5)
        finally:
            silent.close()
    assert not report.ok
    assert f"Test Host (pid {os.getpid()}) was found but did not answer: " in (report.problem() or "")
    assert report.fix() == "Restart the browser; if that does not help, run `webctx doctor`."


def test_states_follow_the_discovery_verdicts() -> None:
    """Stale is "whoever wrote it has ended" (process_gone, not_listening); the rest is refused."""
    d = make_descriptor()
    for reason, state in [("process_gone", "stale"), ("not_listening", "stale"),
                          ("listener_mismatch", "refused"), ("unsafe_file", "refused")]:
        info = ProviderInfo(Path("x.json"), d, ProviderRejected("why.", reason=reason))
        assert state_of(info) == (state, "why.")
    assert state_of(ProviderInfo(Path("x.json"), d))[0] == "live"


def test_mcp_help_explains_check(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["mcp", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "--check" in out and "exits 0 when the bridge would reach a browser, 1 when" in out
