"""`webctx demo` loads the extension over the DevTools pipe, so it works in a browser that ignores
`--load-extension` (Google Chrome since 137).

The browser is a wrapper script standing in for branded Chrome: it drops `--load-extension` and
`--disable-extensions-except` (both load unpacked extensions in Chromium) and execs Debian's
Chromium with every other argument, fds 3 and 4 included. The arguments it received are written
to a file, so the test also sees what the demo asked for.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import psutil
import pytest

from native_host.demo.runner import launch_demo
from tests.e2e.conftest import CHROMIUM
from tests.e2e.test_cli_tools import webctx

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the DevTools pipe is POSIX-only")

WRAPPER = """#!/bin/sh
# Like Google Chrome 137+: --load-extension (and --disable-extensions-except) have no effect.
printf '%s\\n' "$@" > "{args_file}"
for arg do
  shift
  case "$arg" in
    --load-extension*|--disable-extensions-except*) continue ;;
  esac
  set -- "$@" "$arg"
done
exec "{browser}" "$@"
"""


def branded_chrome(folder: Path) -> tuple[Path, Path]:
    """A wrapper executable that ignores --load-extension, and the file it writes its arguments to."""
    folder.mkdir(parents=True, exist_ok=True)
    args_file = folder / "args.txt"
    wrapper = folder / "google-chrome"
    wrapper.write_text(WRAPPER.format(args_file=args_file, browser=CHROMIUM))
    wrapper.chmod(0o755)
    return wrapper, args_file


async def test_the_demo_succeeds_in_a_browser_that_ignores_load_extension(tmp_path: Path) -> None:
    wrapper, args_file = branded_chrome(tmp_path / "chrome")
    code, out, err = await webctx(
        "demo", "--browser", str(wrapper), "--timeout", "45", providers=tmp_path / "providers", timeout_s=90
    )
    assert code == 0, err
    assert "over the DevTools pipe" in err
    assert "MCP tools: current, location, read_page, p1_get_passage\n" in out
    tool_line = "p1_get_passage → “We may say most aptly that the Analytical Engine weaves algebraical pat…”"
    assert f"\n{tool_line}\n" in out
    assert "\nPage text (resources/read webctx://" in out  # the page's text follows
    args = args_file.read_text().splitlines()
    assert "--remote-debugging-pipe" in args and "--enable-unsafe-extension-debugging" in args
    # The page opens only once the extension is loaded (devtools.open_page): a page loaded first
    # has no WebMCP polyfill when its `load` handlers run, and its tool is never registered.
    assert args[-1] == "about:blank"
    assert "└─ Page/tab tab-1  \"webctx demo: the Analytical Engine\"" in out
    # Selected by a real triple-click over DevTools: a page script's selection is not reported.
    assert "└─ Text sel-1  [selected]  “We may say most aptly" in out


def _pipes(pid: int) -> dict[int, str]:
    """fd → `pipe:[inode]` for each pipe `pid` has open (Linux /proc)."""
    found: dict[int, str] = {}
    folder = Path(f"/proc/{pid}/fd")
    for entry in folder.iterdir():
        try:
            target = os.readlink(entry)
        except OSError:
            continue
        if target.startswith("pipe:"):
            found[int(entry.name)] = target
    return found


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads /proc/<pid>/fd")
def test_only_the_browser_holds_the_devtools_pipe_not_the_native_host(tmp_path: Path) -> None:
    """The pipe carries the whole DevTools protocol (it can load extensions, read every page): the
    native host, which runs page-influenced code, and the browser's other children must not get it."""
    wrapper, _ = branded_chrome(tmp_path / "chrome")
    with launch_demo(str(wrapper), progress=lambda _: None) as demo:
        descriptor = demo.wait_for_provider(time.monotonic() + 30)
        browser_pipes = _pipes(demo.pid)
        devtools = {browser_pipes[3], browser_pipes[4]}
        assert len(devtools) == 2, browser_pipes
        children = psutil.Process(demo.pid).children(recursive=True)
        assert descriptor.listener_pid in {child.pid for child in children}  # the native host
        for child in children:
            try:
                held = set(_pipes(child.pid).values())
            except OSError:
                continue  # exited meanwhile
            assert not held & devtools, f"{child.pid} {child.cmdline()} holds the DevTools pipe"
        assert devtools <= set(_pipes(os.getpid()).values())  # the other ends are the demo's
