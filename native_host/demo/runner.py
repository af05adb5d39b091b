"""`webctx demo`: start a real browser with the extension, then read it back as a desktop host (design.md §6).

    find_browser()                   install/programs.py table (demo/browsers.py), or --browser PATH
    temporary profile (mkdtemp)      Default/Preferences: developer mode on (recipe §9.1)
      └─ NativeMessagingHosts/       host manifest + launcher, via install.manifests.install
    serve_demo_page()                demo.html on 127.0.0.1, with the passage to select
    Popen(browser --headless=new …)  stdout/stderr → <log dir>/demo-browser.log (the native host's
                                     stderr is the browser's, so nothing reaches the terminal);
                                     fds 3/4: the DevTools pipe (--remote-debugging-pipe)
    load_extension()                 devtools.py: Browser.getVersion, Extensions.loadUnpacked
    open_page()                      the first tab (started on about:blank) navigates to the demo
                                     page, so its scripts run with the extension already in, and
                                     a real triple-click (DevTools input) selects the passage
    wait_for_provider()              a usable descriptor whose pid is the browser's
    wait_for_selection()             `current` holds a selected Text
    locate()                         `location` of that Text, in points
    tools(), call_page_tool()        `tools/list`; the page's own tool called by its exposed name
    close()                          SIGTERM the browser, SIGKILL after 5 s, reap the native host
                                     and other children by pid, remove the profile

Works as root in a container without a display or D-Bus: `--headless=new`, `--no-sandbox` only
for root, and nothing that needs a session bus.

Just over 400 lines: the launch and the desktop-host steps of one run share the browser process
and its profile (DemoBrowser); the DevTools pipe and the browser table are already apart.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine, Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final, TypeVar

import psutil
from mcp import types

from native_host import paths
from native_host.demo.browsers import check_chromium_family, find_browser
from native_host.demo.devtools import (
    BROWSER_READS_FD,
    BROWSER_WRITES_FD,
    PIPE_FLAGS,
    DevToolsError,
    DevToolsPipe,
    load_extension,
    open_page,
)
from native_host.demo.page import serve_demo_page
from native_host.errors import ProvidersFolderError, ProviderUnavailable, WebctxError
from native_host.host import CurrentResult, HostClient, ProviderInfo, is_same_or_descendant, iter_elements
from native_host.install.installer import install
from native_host.install.manifests import extension_id
from native_host.log_files import open_private_binary, private_log_folder
from native_host.protocol.descriptor import Descriptor
from native_host.protocol.processes import process_alive
from native_host.protocol.providers_folder import folder_problem

DEFAULT_DEMO_TIMEOUT_S: Final = 30.0
"""How long the demo waits for the provider and the selection, in seconds."""

POLL_INTERVAL_S: Final = 0.25
"""Pause between looks at the providers folder / `current` calls while waiting, in seconds."""

BROWSER_STOP_TIMEOUT_S: Final = 5.0
"""Grace period after SIGTERM before the browser is killed, in seconds."""

DEMO_TOOL: Final = "get_passage"
"""The WebMCP tool demo.html registers (read-only, no arguments: it returns the selected passage)."""

PAGE_TOOL_WAIT_S: Final = 3.0
"""How long the demo asks `tools/list` again for the page's tool after the selection arrived, in s."""

BROWSER_LOG_NAME: Final = "demo-browser.log"
"""The browser's stdout/stderr (and so the native host's stderr), in `paths.log_dir()`."""

Progress = Callable[[str], None]
"""Receives one human-readable progress line at a time."""

_T = TypeVar("_T")


def stderr_progress(line: str) -> None:
    """Default progress sink: one line on stderr, prefixed `webctx demo:`."""
    print(f"webctx demo: {line}", file=sys.stderr, flush=True)


WINDOWS_LOAD_HINT: Final = (
    " On Windows the demo cannot hand the browser its DevTools pipe and uses `--load-extension`, "
    "which Google Chrome ignores since version 137: run the demo with Microsoft Edge, Brave or "
    "Chromium (`--browser PATH`), or load the extension by hand (`webctx install`, then "
    "`webctx doctor`)."
)
"""Added to the demo's time-out error on Windows (where `--load-extension` is its only way in)."""


def browser_command(
    browser: str, user_data_dir: Path, url: str, *, load_extension: Path | None = None
) -> list[str]:
    """The browser command line: headless (new), a throwaway profile, and the DevTools pipe on which
    the demo loads the extension (devtools.py; no `--load-extension`, which Google Chrome ignores
    since version 137). With `load_extension` (Windows, where `subprocess` cannot pass
    fds 3 and 4 to the browser), `--load-extension` instead of the pipe: Edge, Brave and Chromium
    still honour it. `--no-sandbox` only when running as root (Chromium refuses to start as root
    otherwise)."""
    command = [browser, "--headless=new"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--no-sandbox")
    command += [
        "--disable-gpu",
        "--disable-dev-shm-usage",  # containers often have a tiny /dev/shm
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={user_data_dir}",
        *(
            PIPE_FLAGS
            if load_extension is None
            else (f"--load-extension={load_extension}", f"--disable-extensions-except={load_extension}")
        ),
        url,
    ]
    return command


def _prepare_providers_folder() -> Path:
    """Create the providers folder 0700 if missing; refuse one the native host would refuse."""
    folder = paths.providers_dir().absolute()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.lstat()
    except OSError as exc:
        raise ProvidersFolderError(
            f"Cannot create the providers folder {folder}: {exc.strerror}. "
            "Set CONTEXT_PROVIDERS_DIR to a folder you own."
        ) from None
    problem = folder_problem(info)  # the native host's own rules (protocol/providers_folder.py)
    if problem in ("symlink", "wrong_type", "other_owner"):
        raise ProvidersFolderError(
            f"The providers folder {folder} is a symlink or another user's; the native host will not "
            "use it. Remove it, or set CONTEXT_PROVIDERS_DIR to a folder you own."
        )
    if problem is not None:
        raise ProvidersFolderError(
            f"The providers folder {folder} is readable by other users; the native host will not use "
            f"it. Run `chmod 700 {folder}`."
        )
    return folder


@dataclass
class DemoBrowser:
    """A running demo: the browser process, its profile, the page URL and where its log goes."""

    browser: str
    process: subprocess.Popen[bytes]
    user_data_dir: Path
    page_url: str
    log_path: Path
    progress: Progress
    client: HostClient = field(default_factory=HostClient)
    descriptor: Descriptor | None = None

    @property
    def pid(self) -> int:
        """The browser's main process id (what the descriptor's `pid` must be)."""
        return self.process.pid

    def _check_alive(self) -> None:
        code = self.process.poll()
        if code is not None:
            raise WebctxError(
                f"The browser exited early (exit code {code}). Its log is {self.log_path}.",
                code="browser_exited",
            )

    def _is_ours(self, descriptor: Descriptor) -> bool:
        # a wrapper script that did not `exec`: the real browser is our descendant
        return is_same_or_descendant(descriptor.pid, self.pid)

    def wait_for_provider(self, deadline: float) -> Descriptor:
        """Wait until a usable descriptor names this browser; return it.
        Raises ProviderUnavailable at `deadline` (a `time.monotonic()` value), naming the log."""
        last: ProviderInfo | None = None
        while time.monotonic() < deadline:
            self._check_alive()
            for info in self.client.providers():
                if info.descriptor is not None and self._is_ours(info.descriptor):
                    if info.usable:
                        self.descriptor = info.descriptor
                        return info.descriptor
                    last = info
            time.sleep(POLL_INTERVAL_S)
        why = ""
        if last is not None and last.rejection is not None:
            why = f" Its descriptor was rejected: {last.rejection.message}"
        windows = WINDOWS_LOAD_HINT if sys.platform == "win32" else ""
        raise ProviderUnavailable(
            f"The browser did not become a provider within the time limit.{why} Check that the "
            f"extension loaded and the native host started: see {self.log_path} and the native "
            f"host's log in {paths.log_dir()}.{windows}"
        )

    def wait_for_selection(self, deadline: float) -> CurrentResult:
        """Ask `current` until it holds a selected Text; return that answer.
        Raises ProviderUnavailable at `deadline` with the last problem seen."""
        assert self.descriptor is not None, "wait_for_provider first"
        last_problem = "no selected text yet"
        while time.monotonic() < deadline:
            self._check_alive()
            remaining = max(0.5, min(5.0, deadline - time.monotonic()))
            self.client.timeout_s = remaining
            try:
                result = _run(self.client.current(self.descriptor.pid))
            except WebctxError as exc:
                last_problem = exc.message
            else:
                if any(e.role == "Text" and e.selected for e in iter_elements(result.answer.root)):
                    return result
                last_problem = "the answer has no selected Text yet"
            time.sleep(POLL_INTERVAL_S)
        raise ProviderUnavailable(
            f"The provider did not report the page's selection within the time limit "
            f"({last_problem}). See {self.log_path}."
        )

    def locate(self, element_id: str) -> str:
        """One line saying where `element_id` is on screen (design.md §1.2), in points; best effort:
        the reason when the provider cannot say."""
        try:
            answer = _run(self.client.location(element_id))
        except WebctxError as exc:
            return f"{element_id} could not be located: {exc.message}"
        rects = "; ".join(f"x={r.x:g} y={r.y:g} w={r.w:g} h={r.h:g}" for r in answer.rects)
        window = f", window {answer.window}" if answer.window is not None else " (headless: no OS window)"
        return f"{element_id} is {answer.state} at {rects or 'no rects'} (points){window}"

    def tools(self, wait_s: float = PAGE_TOOL_WAIT_S) -> list[types.Tool]:
        """The provider's MCP tools, asked again for up to `wait_s` seconds until the demo page's
        own tool is among them (the page registers it on load, as it selects the passage, and
        the two reach the host separately). Best effort: [] when the provider cannot say."""
        pid = self.descriptor.pid if self.descriptor is not None else self.pid
        deadline = time.monotonic() + wait_s
        tools: list[types.Tool] = []
        while True:
            with suppress(WebctxError):
                tools = _run(self.client.list_tools(pid))
            if _demo_tool_name(tools) is not None or time.monotonic() >= deadline:
                return tools
            time.sleep(POLL_INTERVAL_S)

    def call_page_tool(self, tools: list[types.Tool]) -> tuple[str, types.CallToolResult] | None:
        """Call the demo page's own tool (DEMO_TOOL, no arguments) as a desktop host would: find it
        in `tools` by its `_meta.toolName` (design.md §5: the exposed name is `p<n>_…`) and return its
        exposed name and result; None when the page's tool is not among `tools`. Raises WebctxError
        when the call fails (the provider's words)."""
        name = _demo_tool_name(tools)
        if name is None:
            return None
        pid = self.descriptor.pid if self.descriptor is not None else self.pid
        return name, _run(self.client.call_tool(name, {}, pid=pid))


def _demo_tool_name(tools: list[types.Tool]) -> str | None:
    """The exposed name (`p<n>_get_passage`) of the demo page's own tool in `tools`, or None."""
    return next((t.name for t in tools if (t.meta or {}).get("toolName") == DEMO_TOOL), None)


def _run(coro: Coroutine[Any, Any, _T]) -> _T:
    """Run one host-client coroutine to completion on a fresh event loop."""
    return asyncio.run(coro)


def _stop_browser(demo: DemoBrowser) -> None:
    """SIGTERM the browser by pid, SIGKILL after BROWSER_STOP_TIMEOUT_S; then make sure the
    native host and any other child it started are gone (by pid; hosts outlive a browser that
    exits, recipe §4.3)."""
    proc = demo.process
    try:
        children = psutil.Process(proc.pid).children(recursive=True)
    except psutil.Error:
        children = []
    if demo.descriptor is not None and demo.descriptor.listener_pid is not None:
        try:
            host = psutil.Process(demo.descriptor.listener_pid)
            if host not in children:
                children.append(host)
        except psutil.Error:
            pass
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=BROWSER_STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=BROWSER_STOP_TIMEOUT_S)
    alive = _wait_gone(children, timeout_s=3)
    for child in alive:
        with suppress(psutil.Error):
            child.kill()
    _wait_gone(alive, timeout_s=2)


def _wait_gone(processes: list[psutil.Process], *, timeout_s: float) -> list[psutil.Process]:
    """Wait up to `timeout_s` seconds (polling every 50 ms) until none of `processes` is alive;
    return those still alive. A zombie is gone (`protocol.processes.process_alive`, design.md §3): the
    browser's children end up orphans, and under a PID 1 that does not reap (a container's)
    `psutil.wait_procs` would wait out its whole timeout on each of them."""
    deadline = time.monotonic() + timeout_s
    while True:
        alive = [p for p in processes if process_alive(p.pid, started_before=_created(p))]
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(0.05)


def _created(process: psutil.Process) -> float | None:
    """When `process` started (psutil keeps it from when the object was made), or None."""
    try:
        return process.create_time()
    except psutil.Error:
        return None


@contextmanager
def launch_demo(
    browser: str | None = None, *, progress: Progress = stderr_progress
) -> Iterator[DemoBrowser]:
    """Start the demo browser (see the module docstring) and stop it, and remove its profile, when
    the block ends. Raises BrowserNotFound, InstallError, ProvidersFolderError."""
    browser_path = browser or find_browser()
    if not (os.path.isfile(browser_path) and os.access(browser_path, os.X_OK)):
        found = shutil.which(browser_path)
        if found is None:
            raise WebctxError(
                f"--browser {browser_path} is not an executable file. Pass the browser's full path.",
                code="browser_not_found",
            )
        browser_path = found
    check_chromium_family(browser_path)
    extension = paths.extension_dir()
    expected_id = extension_id(extension)
    _prepare_providers_folder()
    with ExitStack() as stack:
        user_data_dir = Path(tempfile.mkdtemp(prefix="webctx-demo-"))
        stack.callback(shutil.rmtree, user_data_dir, True)
        preferences = user_data_dir / "Default" / "Preferences"
        preferences.parent.mkdir(parents=True)
        preferences.write_text(json.dumps({"extensions": {"ui": {"developer_mode": True}}}))
        install("all", user_data_dir=user_data_dir, launcher_dir=user_data_dir)
        url = stack.enter_context(serve_demo_page())
        log_path = private_log_folder() / BROWSER_LOG_NAME  # 0700 / 0600 whatever the umask
        log_file: IO[bytes] = stack.enter_context(open_private_binary(log_path))
        env = dict(os.environ)
        env["CONTEXT_PROVIDERS_DIR"] = str(paths.providers_dir().absolute())
        progress(f"starting {Path(browser_path).name} ({browser_path}) on {url}")
        if sys.platform == "win32":
            # No DevTools pipe on Windows (devtools.py): --load-extension, which Edge, Brave and
            # Chromium honour; branded Chrome 137+ does not, and the time-out error says so.
            process = subprocess.Popen(
                browser_command(browser_path, user_data_dir, url, load_extension=extension),
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                env=env,
            )
            demo = DemoBrowser(browser_path, process, user_data_dir, url, log_path, progress)
            stack.callback(_stop_browser, demo)
            yield demo
            progress("stopping the browser")
            return
        pipe = DevToolsPipe.open()
        stack.callback(pipe.close)  # after _stop_browser (callbacks run last-in first-out)
        process = subprocess.Popen(
            # about:blank first: the demo page opens once the extension is in (open_page)
            browser_command(browser_path, user_data_dir, "about:blank"),
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
            # fds 3/4 are the browser's DevTools pipe; close_fds (the default) closes all others.
            pass_fds=(BROWSER_READS_FD, BROWSER_WRITES_FD),
            preexec_fn=pipe.child_setup,
        )
        pipe.parent_started()
        demo = DemoBrowser(browser_path, process, user_data_dir, url, log_path, progress)
        stack.callback(_stop_browser, demo)
        product, loaded_id = load_extension(pipe, str(extension), browser_path)
        if loaded_id != expected_id:  # the host manifest admits only the key-derived id
            raise WebctxError(
                f"{browser_path} ({product}) loaded the extension as {loaded_id!r}, not as "
                f"{expected_id!r} (the id its manifest's key gives), so it may not start the native host.",
                code="extension_not_loaded",
            )
        progress(f"{product} loaded the extension {loaded_id} over the DevTools pipe")
        try:
            open_page(pipe, url, select_id="passage")
        except DevToolsError as exc:
            raise WebctxError(
                f"{browser_path} ({product}) could not open the demo page {url}: {exc.message}. "
                f"Its log is {log_path}.",
                code="demo_page_not_opened",
            ) from None
        yield demo
        progress("stopping the browser")
