"""Consequential page tools ask the user first (design.md §5 "User control"; docs/internals/extension.md).

A real Chromium, with native WebMCP and with the extension's polyfill (the `consequentialHint`
annotation must reach the worker both ways), tests/pages/confirm_tools.html, and the reference
host client over real HTTP.
A `tools/call` of `buy` (`consequentialHint: true`) opens the extension's own prompt window
(confirm/confirm.html); Allow runs it, Deny / closing the window / no answer before the deadline /
the client's cancellation do not. `peek` (read-only) and `plain` (no hints) never ask, and nothing
asks with the setting off. The native host runs with a 5 s page-tool deadline (the harness), so
the prompt gives up after 4.5 s.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from mcp import types
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, expect

from tests.e2e.conftest import EXTENSION_ID
from tests.e2e.page_tools_harness import (
    DEADLINE_MS,
    ToolsBrowser,
    browser_per_mode,
    monotonic_ms,
    page_tools_of,
    text_of,
    wait_for_tools,
)
from tests.e2e.png import background_share, has_colour_near, read_png
from tests.support.waiting import until

pytestmark = pytest.mark.asyncio(loop_scope="module")

PAGE = "/confirm_tools.html"
PROMPT = f"chrome-extension://{EXTENSION_ID}/confirm/confirm.html"
OPTIONS = f"chrome-extension://{EXTENSION_ID}/options/options.html"
ALLOW_BLUE = (0x1A, 0x73, 0xE8)


class Prompts:
    """Every prompt window the browser opens, in order (Playwright sees the popup windows)."""

    def __init__(self, tb: ToolsBrowser) -> None:
        self.pages: list[Page] = []
        self.taken = 0
        tb.running.context.on("page", lambda page: self.pages.append(page))

    async def next(self, *, timeout_s: float = 10.0) -> Page:
        """The next prompt window, once it shows a call (`#details` visible)."""
        async with asyncio.timeout(timeout_s):
            while True:
                fresh = [p for p in self.pages[self.taken :] if p.url.startswith(PROMPT)]
                if fresh:
                    self.taken = self.pages.index(fresh[0]) + 1
                    await expect(fresh[0].locator("#details")).to_be_visible(timeout=timeout_s * 1000)
                    return fresh[0]
                await asyncio.sleep(0.05)

    def opened_since(self, count: int) -> list[Page]:
        """Prompt windows among the pages opened after the first `count`."""
        return [p for p in self.pages[count:] if p.url.startswith(PROMPT)]


# One browser per WebMCP mode for the module (the annotation reaches the worker both ways).
tb = browser_per_mode("confirm")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def prompts(tb: ToolsBrowser) -> Prompts:
    return Prompts(tb)


@pytest_asyncio.fixture(loop_scope="module")
async def shop(tb: ToolsBrowser, page_server: str) -> AsyncIterator[Page]:
    """tests/pages/confirm_tools.html in a new tab, tools registered; closed after the test."""
    page = await tb.open(PAGE, page_server)
    try:
        yield page
    finally:
        await page.close()


async def _names(tb: ToolsBrowser, page_server: str) -> dict[str, str]:
    """Exposed names of the shop's tools, by original name."""
    url = f"{page_server}{PAGE}"
    async with tb.session() as session:
        tools = await wait_for_tools(session, lambda ts: "plain" in page_tools_of(ts, url))
    return {original: tool.name for original, tool in page_tools_of(tools, url).items()}


async def _call(tb: ToolsBrowser, name: str, arguments: dict[str, str]) -> types.CallToolResult:
    async with tb.session() as session:
        return await session.call_tool(name, arguments)


async def _closed(page: Page, *, timeout_s: float = 5.0) -> None:
    await until(page.is_closed, timeout_s=timeout_s, message=f"{page.url} closed")


async def _marker_prompt(tb: ToolsBrowser, prompts: Prompts, names: dict[str, str], before: int) -> None:
    """Make a consequential call as a marker and deny it: its prompt must be the first opened after
    the first `before` pages, so the calls made before it opened none (Playwright reports windows
    in the order they open)."""
    marker = asyncio.create_task(_call(tb, names["buy"], {"item": "marker"}))
    prompt = await prompts.next()
    assert "marker" in (await prompt.locator("#arguments").text_content() or ""), "an earlier prompt"
    assert prompts.opened_since(before) == [prompt]
    await _press(prompt, "deny")
    assert (await marker).is_error


async def _press(prompt: Page, button: str) -> None:
    """Click `#allow` or `#deny` (`Escape`: press that key); the worker closes the window at once,
    which may end the click before Playwright sees it done."""
    try:
        if button == "Escape":
            await prompt.keyboard.press("Escape")
        else:
            await prompt.locator(f"#{button}").click()
    except PlaywrightError:
        if not prompt.is_closed():
            await _closed(prompt)  # closing under way


async def test_allow_runs_the_tool_and_the_prompt_shows_the_call_escaped(
    tb: ToolsBrowser, prompts: Prompts, shop: Page, page_server: str, tmp_path: Path
) -> None:
    names = await _names(tb, page_server)
    call = asyncio.create_task(_call(tb, names["buy"], {"item": "<img src=x onerror=alert(1)>"}))
    prompt = await prompts.next()
    await expect(prompt.locator("#tool-name")).to_have_text("buy")
    await expect(prompt.locator("#origin")).to_have_text(page_server)
    await expect(prompt.locator("#page-title")).to_have_text("webctx confirm page")
    await expect(prompt.locator("#description")).to_have_text("Buy an item <b>now</b>.")
    assert "<img src=x onerror=alert(1)>" in await prompt.locator("#arguments").text_content()  # type: ignore[operator]
    assert await prompt.locator("#arguments img, #description b").count() == 0  # text, never HTML
    await prompt.set_viewport_size({"width": 480, "height": 440})
    shot = await prompt.screenshot(path=str(tmp_path / "confirm-prompt.png"))
    width, height, pixels = read_png(shot)
    assert width >= 300 and height >= 200
    assert background_share(pixels) < 0.97, "the prompt screenshot is blank"
    _, _, button = read_png(await prompt.locator("#allow").screenshot())
    assert has_colour_near(button, ALLOW_BLUE), "the Allow button is not drawn"
    assert "buy:" not in " ".join(await shop.evaluate("window.events"))  # nothing ran yet
    await _press(prompt, "allow")
    result = await call
    assert not result.is_error, text_of(result)
    assert result.structured_content == {"bought": "<img src=x onerror=alert(1)>"}
    await _closed(prompt)


@pytest.mark.parametrize("how", ["deny", "close the window", "escape"])
async def test_deny_or_closing_the_prompt_declines_the_call(
    tb: ToolsBrowser, prompts: Prompts, shop: Page, page_server: str, how: str
) -> None:
    names = await _names(tb, page_server)
    call = asyncio.create_task(_call(tb, names["buy"], {"item": "tea"}))
    prompt = await prompts.next()
    if how == "deny":
        await _press(prompt, "deny")
    elif how == "escape":
        await _press(prompt, "Escape")
    else:
        await prompt.close()
    result = await call
    assert result.is_error and "declined by the user" in text_of(result), text_of(result)
    assert await shop.evaluate("window.events") == []
    await _closed(prompt)


async def test_no_answer_before_the_deadline_is_a_timeout(
    tb: ToolsBrowser, prompts: Prompts, shop: Page, page_server: str
) -> None:
    names = await _names(tb, page_server)
    started = monotonic_ms()
    call = asyncio.create_task(_call(tb, names["buy"], {"item": "tea"}))
    prompt = await prompts.next()
    result = await call
    waited_ms = monotonic_ms() - started
    assert result.is_error and "confirmation timed out" in text_of(result), text_of(result)
    # The prompt's own answer (at 90 % of the deadline), not the host's deadline message.
    assert DEADLINE_MS * 0.85 <= waited_ms < DEADLINE_MS + 2000, waited_ms
    await _closed(prompt)
    assert await shop.evaluate("window.events") == []


async def test_client_cancellation_closes_the_prompt(
    tb: ToolsBrowser, prompts: Prompts, shop: Page, page_server: str
) -> None:
    names = await _names(tb, page_server)
    async with tb.session() as session:
        call = asyncio.create_task(session.call_tool(names["buy"], {"item": "tea"}))
        prompt = await prompts.next()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await _closed(prompt)
        assert await shop.evaluate("window.events") == []
        result = await session.call_tool(names["peek"], {})  # the session still works
        assert text_of(result) == "cart is empty"


async def test_several_pending_prompts_do_not_mix(
    tb: ToolsBrowser, prompts: Prompts, shop: Page, page_server: str
) -> None:
    names = await _names(tb, page_server)
    calls = {
        item: asyncio.create_task(_call(tb, names["buy"], {"item": item})) for item in ("apples", "pears")
    }
    shown = [await prompts.next(), await prompts.next()]
    by_item = {}
    for prompt in shown:
        text = await prompt.locator("#arguments").text_content() or ""
        by_item["apples" if "apples" in text else "pears"] = prompt
    assert set(by_item) == {"apples", "pears"}
    await _press(by_item["pears"], "deny")
    await _press(by_item["apples"], "allow")
    apples, pears = await calls["apples"], await calls["pears"]
    assert apples.structured_content == {"bought": "apples"}
    assert pears.is_error and "declined by the user" in text_of(pears)
    assert await shop.evaluate("window.events") == ["buy:apples"]


async def test_tools_not_marked_consequential_never_ask(
    tb: ToolsBrowser, prompts: Prompts, shop: Page, page_server: str
) -> None:
    names = await _names(tb, page_server)
    before = len(prompts.pages)
    assert text_of(await _call(tb, names["peek"], {})) == "cart is empty"
    assert text_of(await _call(tb, names["plain"], {})) == "plain ran"
    await _marker_prompt(tb, prompts, names, before)
    assert await shop.evaluate("window.events") == ["peek", "plain"]


async def _set_confirmation(tb: ToolsBrowser, shop: Page, on: bool) -> None:
    """Switch "ask before consequential page tools" in the options page, as the user would, then
    bring the shop's tab back to the front (only the visible page's tools are exposed)."""
    options = await tb.running.context.new_page()
    try:
        await options.goto(OPTIONS)
        await options.locator("#confirm-consequential").set_checked(on)
        await expect(options.locator("#saved")).to_have_text("Saved; applied at once.", timeout=5_000)
    finally:
        await options.close()
    await shop.bring_to_front()


async def test_with_the_setting_off_nothing_asks(
    tb: ToolsBrowser, prompts: Prompts, shop: Page, page_server: str
) -> None:
    stored = await tb.running.worker_eval("async () => (await chrome.storage.local.get('settings')).settings")
    assert stored is None or stored.get("confirmConsequential", True)  # on by default
    await _set_confirmation(tb, shop, False)
    try:
        names = await _names(tb, page_server)
        before = len(prompts.pages)
        result = await _call(tb, names["buy"], {"item": "tea"})
        assert result.structured_content == {"bought": "tea"}
    finally:
        await _set_confirmation(tb, shop, True)
    # On again: it asks again, live; and this prompt is the first since the call made while off.
    names = await _names(tb, page_server)
    await _marker_prompt(tb, prompts, names, before)
    assert await shop.evaluate("window.events") == ["buy:tea"]


async def test_closing_the_page_during_the_prompt_closes_it_and_the_call_says_page_gone(
    tb: ToolsBrowser, prompts: Prompts, page_server: str
) -> None:
    page = await tb.open(PAGE, page_server)
    names = await _names(tb, page_server)
    call = asyncio.create_task(_call(tb, names["buy"], {"item": "tea"}))
    prompt = await prompts.next()
    await page.close()
    result = await call
    assert result.is_error and text_of(result).startswith("Page gone"), text_of(result)
    await _closed(prompt)


async def test_padding_cannot_hide_the_recipient_or_the_amount(
    tb: ToolsBrowser, prompts: Prompts, shop: Page, page_server: str
) -> None:
    """A memo padded with 2,100 spaces: the prompt still shows `to` and `amount`, on screen."""
    names = await _names(tb, page_server)
    arguments = {"memo": "Thanks" + " " * 2100, "to": "ATTACKER-IBAN", "amount": 9999}
    call = asyncio.create_task(_call(tb, names["pay"], arguments))  # type: ignore[arg-type]
    prompt = await prompts.next()
    shown = await prompt.locator("#arguments").inner_text()
    assert "ATTACKER-IBAN" in shown and "9999" in shown, shown
    assert "Thanks[2,100 spaces]" in shown, shown
    for key in ("to", "amount"):
        await expect(prompt.locator(f'#arguments li[data-key="{key}"]')).to_be_in_viewport()
    await expect(prompt.locator("#allow")).to_be_visible()
    await _press(prompt, "allow")
    result = await call
    assert result.structured_content == {"paid": 9999, "to": "ATTACKER-IBAN"}, text_of(result)


async def test_lookalike_keys_and_blank_braille_are_shown_for_what_they_are(
    tb: ToolsBrowser, prompts: Prompts, shop: Page, page_server: str
) -> None:
    """A client sends `\\u0430mount` (a Cyrillic a) and `amount` + U+3164 beside the real `amount`, and a
    memo of 300 braille blanks, a recipient with a Cyrillic a: each lookalike key shows its code
    points, the blanks are counted, the recipient's mixed scripts are said."""
    names = await _names(tb, page_server)
    arguments = {"amount": 5, "\u0430mount": 9999, "amount\u3164": 9998,
                 "memo": "x" + "\u2800" * 300 + "y", "to": "p\u0430ypal-IBAN"}
    call = asyncio.create_task(_call(tb, names["pay"], arguments))  # type: ignore[arg-type]
    prompt = await prompts.next()
    shown = await prompt.locator("#arguments").inner_text()
    assert "\u0430mount (\\u{430}mount): 9999" in shown, shown
    assert "amount[1 invisible character] (amount\\u{3164}): 9998" in shown, shown
    assert '"x[300 invisible characters]y"' in shown and "\u2800" not in shown, shown
    assert "mixed scripts: p\\u{430}ypal" in shown, shown  # a Cyrillic a (U+0430) in the recipient
    keys = await prompt.locator("#arguments li").evaluate_all("(lis) => lis.map((li) => li.dataset.key)")
    assert len(set(keys)) == len(keys) == 5, keys
    await _press(prompt, "deny")
    result = await call
    assert result.is_error and "declined by the user" in text_of(result), text_of(result)


async def test_arguments_too_many_to_show_offer_no_allow(
    tb: ToolsBrowser, prompts: Prompts, shop: Page, page_server: str
) -> None:
    names = await _names(tb, page_server)
    arguments = {f"k{i}": "x" for i in range(60)} | {"to": "ATTACKER-IBAN"}
    call = asyncio.create_task(_call(tb, names["pay"], arguments))
    prompt = await prompts.next()
    await expect(prompt.locator("#incomplete")).to_contain_text("does not offer Allow. Deny it")
    await expect(prompt.locator("#allow")).to_be_hidden()
    await expect(prompt.locator("#deny")).to_be_visible()
    # Enter on the focused button (Deny) is all a user can do; a forged "allow" would be refused too.
    try:
        await prompt.keyboard.press("Enter")
    except PlaywrightError:
        assert prompt.is_closed()  # the worker closed the window at once
    result = await call
    assert result.is_error and "declined by the user" in text_of(result), text_of(result)
    assert await shop.evaluate("window.events") == []


async def test_a_cross_origin_frames_tool_names_the_frame_in_the_prompt(
    tb: ToolsBrowser, prompts: Prompts, page_server: str, other_origin: str
) -> None:
    query = f"/xorigin.html?child={other_origin}&paying=1"
    url = page_server + query
    page = await tb.open(query, page_server)
    try:
        async with tb.session() as session:
            tools = await wait_for_tools(session, lambda ts: "frame_pay" in page_tools_of(ts, url))
            pay = page_tools_of(tools, url)["frame_pay"]
        call = asyncio.create_task(_call(tb, pay.name, {"amount": "5"}))
        prompt = await prompts.next()
        await expect(prompt.locator("#origin")).to_have_text(other_origin)
        await expect(prompt.locator("#frame-of")).to_have_text(f" in a frame of {page_server}")
        await expect(prompt.locator("#frame-of")).to_be_visible()
        await _press(prompt, "deny")
        assert (await call).is_error
    finally:
        await page.close()


async def test_the_prompt_strips_and_isolates_page_strings(
    tb: ToolsBrowser, prompts: Prompts, page_server: str
) -> None:
    """A title with RLO: the prompt shows it stripped, in its own direction-isolated element."""
    page = await tb.open(PAGE, page_server)
    try:
        await page.evaluate("document.title = 'Shop \\u202egnp.exe\\u202c \\u001b[31mred\\u2028x'")
        names = await _names(tb, page_server)
        call = asyncio.create_task(_call(tb, names["buy"], {"item": "tea\u202e"}))
        prompt = await prompts.next()
        await expect(prompt.locator("#page-title")).to_have_text("Shop gnp.exe [31mred x")
        assert await prompt.locator("#page-title").get_attribute("dir") == "auto"
        assert await prompt.locator("#origin").evaluate("e => e.localName + ':' + e.dir") == "bdi:auto"
        value = prompt.locator('#arguments li[data-key="item"] .value')
        await expect(value).to_have_text('"tea[1 invisible character]"')
        await _press(prompt, "deny")
        assert (await call).is_error
    finally:
        await page.close()
