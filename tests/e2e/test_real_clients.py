"""Real MCP clients, headless, with exactly what `webctx mcp --print-config CLIENT` prints, against a
real browser: checked by what the client's model saw.

The model is a stand-in on 127.0.0.1 (tests/support/stand_in_model.py) that records every request
the client sends it and answers with a script: `current`, then `location` of the selected text,
then the page's text through the client's resource tool (`read_mcp_resource`: the `…/text` link of
the focused Page, read with `resources/read`) and through `read_page` (skipped by the stand-in
while the bridge does not offer it), then the page's own tool, then a final text.
The client's configuration is the printed snippet plus only the stand-in's provider settings;
HOME and the client's own folders are temporary, and nothing but 127.0.0.1 is named.

A passage is selected with a real mouse drag; the first model request must already offer every
webctx tool (`current`, `location`, the page's tool), `current`'s result must carry the selection
verbatim, and the page's text and the page tool's result must arrive. Then the browser quits and
another starts (a new provider: port, token, instance): the next client run sees the tools again
and the new browser's selection.

Clients: Codex 0.169.0 (npm `@openai/codex`: Responses API, SSE; pinned in package.json),
opencode 1.18.33 (npm `opencode-ai`: Chat Completions) and Gemini CLI 0.61.0 (npm
`@google/gemini-cli`: the Gemini API, `streamGenerateContent` SSE; `-m gemini-2.5-flash`, as model
"auto" would first ask a routing classifier; its folder trusted with GEMINI_CLI_TRUST_WORKSPACE, as
`--print-config gemini` tells a headless user), the last two pinned in scripts/setup.sh and
installed into .clients/, all three by `scripts/setup.sh --with-tests` (so in CI too) with their
Linux binaries from the npm registry. The test is parametrized by client (`-k gemini`) and skipped,
naming what is missing, when the client is not installed; each client gets a browser, then another
after the restart. Measured on the 2-core VM: at load 10.6, Codex 5 to 8 s a run, opencode 21 to 32
s (its start is CPU-bound), the file 91 s; at load 14, opencode 45 to 61 s and the file 156 s; at
load 7 to 9, Codex 3 to 5 s, opencode 8 to 10 s, the file 43 s (those with one browser for both
clients). Gemini CLI at load 4 to 7: 6.3 to 7.5 s a run, its test 28 s.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from native_host.host import HostClient
from tests.e2e.conftest import launched_browser
from tests.e2e.gestures import drag_select, element_js
from tests.e2e.harness import RunningBrowser
from tests.e2e.tree import find_all, selected_texts
from tests.support.stand_in_model import (
    Recorded,
    StandInModel,
    TextStep,
    ToolStep,
    match_tool,
    offered_tool_names,
    stand_in_model,
    tool_results,
)

ROOT = Path(__file__).resolve().parents[2]
WEBCTX = Path(sys.executable).with_name("webctx")
CODEX = ROOT / "node_modules" / ".bin" / "codex"
OPENCODE = ROOT / ".clients" / "node_modules" / ".bin" / "opencode"
GEMINI = ROOT / ".clients" / "node_modules" / ".bin" / "gemini"
GEMINI_MODEL = "gemini-2.5-flash"
"""Named with `-m`: the default, "auto", first asks a classifier model for a route (JSON the
stand-in does not give), and Gemini CLI retries that for minutes."""
CLIENT_RUN_LIMIT_S = 90.0
"""One headless client run, bridge start and five model turns included: seconds on an idle
machine, generous for a loaded 2-core one."""

PAGE_TOOL = "get_heading"
HEADING = "Notes for an MCP client"


def printed_config(client: str) -> str:
    """What `webctx mcp --print-config CLIENT` prints on stdout, byte for byte."""
    done = subprocess.run(
        [str(WEBCTX), "mcp", "--print-config", client], capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout


def selection_id(results: list[str]) -> dict[str, Any] | None:
    """`location`'s arguments: the id of the selected Text in the first tool result (`current`)."""
    if not results:
        return None
    answer = _structured(results[0])
    if answer is None:
        return None
    texts = selected_texts(answer)
    return {"id": texts[0]["id"]} if texts else None


def page_text_arguments(results: list[str]) -> dict[str, Any] | None:
    """`read_page`'s arguments: the focused Page's id from `current`."""
    answer = _structured(results[0]) if results else None
    if answer is None:
        return None
    pages = find_all(answer["root"], lambda e: e["role"] == "Page" and bool(e.get("focused")))
    return {"id": pages[0]["id"]} if pages else None


def _structured(text: str) -> dict[str, Any] | None:
    # A client hands the model the tool result as text: the structuredContent's JSON itself, or an
    # envelope (`{"content": […], "structuredContent": {…}}`, Codex) around it, or the JSON between
    # markers (`<untrusted_context>…</untrusted_context>`, Gemini CLI): the first JSON value counts.
    start = text.find("{")
    if start < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text, start)
    except ValueError:
        return None
    if isinstance(value, dict) and isinstance(value.get("structuredContent"), dict):
        value = value["structuredContent"]
    if isinstance(value, dict) and "root" in value:
        return value
    if isinstance(value, dict):  # text blocks carrying the JSON
        for block in value.get("content") or []:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                inner = _structured(block["text"])
                if inner is not None:
                    return inner
    return None


def page_text_resource(results: list[str]) -> dict[str, Any] | None:
    """The client's resource-reading tool's arguments (Codex's and opencode's `read_mcp_resource`:
    `server`, `uri`; Gemini CLI's takes `uri` and finds the server itself, ignoring `server`): the
    `…/text` resource the focused Page links in `current`."""
    answer = _structured(results[0]) if results else None
    if answer is None:
        return None
    pages = find_all(answer["root"], lambda e: e["role"] == "Page" and bool(e.get("focused")))
    links = [block["uri"] for page in pages for block in page.get("content", [])
             if block.get("type") == "resource_link" and str(block.get("uri", "")).endswith("/text")]
    return {"server": "webctx", "uri": links[0]} if links else None


PAGE_TEXT = "A second browser shows this line instead"
"""In the page's text, and never in a selection of either run (the second selects from its 5th
character on)."""

SCRIPT = [
    ToolStep("current"),
    ToolStep("location", selection_id),
    ToolStep("read_mcp_resource", page_text_resource),
    ToolStep("read_page", page_text_arguments),
    ToolStep(f"p1_{PAGE_TOOL}"),
    TextStep("The selection is noted."),
]


async def select_passage(browser: RunningBrowser, page_server: str, element_id: str) -> str:
    """Open the clients page, select part of paragraph `element_id` with a real mouse drag, and wait
    until the provider reports it; return the selected text."""
    page = await browser.new_page(f"{page_server}/clients.html")
    await page.evaluate("() => window.ready")
    text: str = await page.evaluate("(id) => document.getElementById(id).textContent", element_id)
    start, end = 4, len(text) - 10
    await drag_select(page, element_js(element_id), start, end)
    wanted = text[start:end]
    descriptor = await browser.descriptor()
    host = HostClient(folder=browser.providers, timeout_s=10.0)
    deadline = time.monotonic() + 20
    while True:
        answer = (await host.current(descriptor.pid)).raw
        if any(block.get("text") == wanted for t in selected_texts(answer) for block in t.get("content", [])):
            return wanted
        assert time.monotonic() < deadline, f"the provider never reported the selection {wanted!r}"
        await asyncio.sleep(0.1)


def agent_requests(model: StandInModel, run: int) -> list[Recorded]:
    """Run `run`'s model requests that offer tools: the agent's turns (opencode also asks its
    model, without tools, for the session's title)."""
    return [r for r in model.run_requests(run) if r.body is not None and offered_tool_names(r.body)]


def first_request_tools(model: StandInModel, run: int) -> list[str]:
    requests = agent_requests(model, run)
    assert requests, "the client never asked the model with tools"
    assert requests[0].body is not None
    return offered_tool_names(requests[0].body)


def results_seen(requests: list[Recorded]) -> list[str]:
    last = requests[-1].body
    assert last is not None
    return tool_results(last)


def has_tool(offered: list[str], name: str) -> bool:
    return match_tool(name, offered) is not None


ClientRun = Callable[[StandInModel, str, Path], subprocess.CompletedProcess[str]]


def run_codex(model: StandInModel, model_url: str, home: Path) -> subprocess.CompletedProcess[str]:
    """`codex exec` headless with the printed Codex config and the stand-in as its model provider."""
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    provider = (
        # Only the stand-in's provider settings; everything about webctx is the printed snippet.
        'model = "stand-in"\n'
        'model_provider = "stand_in"\n'
        "check_for_update_on_startup = false\n"
        "[analytics]\nenabled = false\n"
        "[model_providers.stand_in]\n"
        'name = "stand-in"\n'
        f'base_url = "{model_url}"\n'
        'wire_api = "responses"\n'
        'env_key = "STAND_IN_KEY"\n'
    )
    (codex_home / "config.toml").write_text(provider + printed_config("codex"))
    env = client_env(home) | {"CODEX_HOME": str(codex_home), "STAND_IN_KEY": "stand-in"}
    model.start()
    return subprocess.run(
        # --disable plugins: no sync of Codex's plugin list from the network
        [str(CODEX), "exec", "--skip-git-repo-check", "--ephemeral", "--disable", "plugins",
         "What have I selected?"],
        cwd=home, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=CLIENT_RUN_LIMIT_S,
    )


def run_opencode(model: StandInModel, model_url: str, home: Path) -> subprocess.CompletedProcess[str]:
    """`opencode run` headless with the printed opencode config and the stand-in as its provider
    (Chat Completions through the bundled `@ai-sdk/openai-compatible`)."""
    home.mkdir(parents=True, exist_ok=True)
    config = json.loads(printed_config("opencode"))
    config |= {  # only the stand-in's provider settings, and no update or share
        "model": "stand-in/stand-in",
        "autoupdate": False,
        "share": "disabled",
        "provider": {"stand-in": {
            "npm": "@ai-sdk/openai-compatible", "name": "stand-in",
            "options": {"baseURL": model_url, "apiKey": "stand-in"},
            "models": {"stand-in": {"name": "stand-in", "tool_call": True}},
        }},
    }
    folder = home / "project"
    folder.mkdir(exist_ok=True)
    (folder / "opencode.json").write_text(json.dumps(config, indent=2))
    env = client_env(home) | {
        "OPENCODE_DISABLE_MODELS_FETCH": "true",  # no model list from the network
        "OPENCODE_DISABLE_AUTOUPDATE": "true",
        "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CACHE_HOME": str(home / ".cache"), "XDG_STATE_HOME": str(home / ".local/state"),
    }
    model.start()
    return subprocess.run(
        [str(OPENCODE), "run", "What have I selected?"], cwd=folder, env=env, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=CLIENT_RUN_LIMIT_S,
    )


def run_gemini(model: StandInModel, model_url: str, home: Path) -> subprocess.CompletedProcess[str]:
    """`gemini -p` headless with the printed Gemini CLI config in ~/.gemini/settings.json and the
    stand-in as its Gemini API endpoint (`GOOGLE_GEMINI_BASE_URL`, an API key auth)."""
    gemini_home = home / ".gemini"
    gemini_home.mkdir(parents=True, exist_ok=True)
    settings = json.loads(printed_config("gemini"))
    settings |= {  # only the stand-in's auth, and no update check or usage statistics
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
    }
    (gemini_home / "settings.json").write_text(json.dumps(settings, indent=2))
    folder = home / "project"
    folder.mkdir(exist_ok=True)
    env = client_env(home) | {
        "GEMINI_API_KEY": "stand-in",
        "GOOGLE_GEMINI_BASE_URL": model_url.removesuffix("/v1"),  # it adds /v1beta/models/…
        # What `--print-config gemini` tells a headless user: without a trusted folder `gemini -p`
        # exits (55) before any MCP server starts.
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
    }
    model.start()
    return subprocess.run(
        [str(GEMINI), "-m", GEMINI_MODEL, "-p", "What have I selected?"], cwd=folder, env=env,
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=CLIENT_RUN_LIMIT_S,
    )


def client_env(home: Path) -> dict[str, str]:
    """The client's environment: a temporary HOME, PATH, and what the bridge needs to find this
    test's browser (CONTEXT_PROVIDERS_DIR, XDG_*); nothing that names a real model service."""
    names = ("CONTEXT_PROVIDERS_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME",
             "XDG_RUNTIME_DIR", "PATH", "LANG")
    env = {name: os.environ[name] for name in names if name in os.environ}
    return env | {"HOME": str(home), "NO_COLOR": "1"}


def check_run(
    model: StandInModel, run: int, done: subprocess.CompletedProcess[str], selected: str, *, client: str
) -> None:
    """What the model saw in client run `run`: every webctx tool on the first request, the selection
    verbatim in `current`'s result, and the page tool's result."""
    detail = f"{client}: exit {done.returncode}\nstdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-3000:]}"
    offered = first_request_tools(model, run)
    for name in ("current", "location", f"p1_{PAGE_TOOL}"):
        assert has_tool(offered, name), f"{name} not offered on the first request: {offered}\n{detail}"
    requests = agent_requests(model, run)
    results = results_seen(requests)
    assert len(results) >= 3, f"the model got {len(results)} tool results: {results}\n{detail}"
    assert selected in results[0], f"current's result lacks the selection: {results[0][:2000]}"
    assert '"visible"' in results[1] or "visible" in results[1], f"location's result: {results[1][:1000]}"
    assert any(PAGE_TEXT in result for result in results[2:]), f"the page's text never arrived: {results}"
    assert any(f"heading: {HEADING}" in result for result in results[2:]), f"no page tool result: {results}"
    assert done.returncode == 0, detail


CLIENTS: dict[str, tuple[Path, ClientRun]] = {
    "codex": (CODEX, run_codex), "opencode": (OPENCODE, run_opencode), "gemini": (GEMINI, run_gemini),
}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("client", list(CLIENTS))
async def test_real_client_sees_webctx_tools_first_and_gets_the_selection_across_a_browser_restart(
    client: str, browser: RunningBrowser, page_server: str, tmp_path: Path
) -> None:
    """One client, run on a browser, then again after the browser restarted."""
    path, runner = CLIENTS[client]
    if not path.exists():
        pytest.skip(f"{client} is not installed ({path}); run ./scripts/setup.sh --with-tests")
    home = tmp_path / f"{client}-home"
    with stand_in_model(SCRIPT) as (model, url):
        selected = await select_passage(browser, page_server, "first")
        started = time.monotonic()
        done = runner(model, url, home)
        print(f"{client} run 1: {time.monotonic() - started:.1f} s")
        check_run(model, len(model.runs) - 1, done, selected, client=client)

        await browser.context.close()  # the browser quits: its provider (port, token) goes
        async with launched_browser(tmp_path / "udd-again") as again:
            selected_again = await select_passage(again, page_server, "second")
            started = time.monotonic()
            done = runner(model, url, home)
            print(f"{client} run 2: {time.monotonic() - started:.1f} s")
            check_run(model, len(model.runs) - 1, done, selected_again, client=client)
