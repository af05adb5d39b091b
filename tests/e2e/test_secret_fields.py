"""Secret fields are never shared (content/secret_fields.js; docs/internals/extension.md "Secret fields"),
in a real Chromium with the real extension and native host, driven with real input: a revealed password
(the "show password" eye), fields secret by `autocomplete`, by name or label, by
`-webkit-text-security`, a contenteditable card field, a masked contenteditable next to a
selection (its text must not be the selection's context), and the page text.

Each secret field is compared with an ordinary field the test fills the same way, whose content and
selection `current` does carry, so a leak would be seen. Page: tests/pages/secret.html.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page

from native_host.host import HostClient
from tests.e2e.gestures import click_into, double_click_word, element_js, select_between
from tests.e2e.pointing_harness import Shared, ask, ask_until, our_page, pointing_fixtures
from tests.e2e.tree import find_all, selected_texts

pytestmark = pytest.mark.asyncio(loop_scope="module")

shared, tab, host = pointing_fixtures("secret-fields")

PAGE = "/secret.html"
WORKER_READ = Path(__file__).resolve().parents[2] / "extension" / "service_worker" / "page_read.js"


def page_text_files() -> list[str]:
    """The files the worker injects for a page-text read (page_read.js PAGE_TEXT_FILES), in order."""
    found = re.search(r"PAGE_TEXT_FILES = \[(.*?)\]", WORKER_READ.read_text(encoding="utf-8"), re.S)
    assert found, "PAGE_TEXT_FILES not found in page_read.js"
    return re.findall(r'"([^"]+)"', found.group(1))


async def opened(tab: Page, page_server: str) -> None:
    await tab.goto(f"{page_server}{PAGE}")
    await tab.bring_to_front()


async def type_into(tab: Page, element_id: str, text: str) -> None:
    """Click into the field, go to its end and type `text` with the keyboard."""
    await click_into(tab, element_js(element_id))
    await tab.keyboard.press("End")
    await tab.keyboard.type(text)


async def select_to_start(tab: Page) -> None:
    """Select from the caret back to the field's start, as a user does: Shift+Home."""
    await tab.keyboard.press("Shift+Home")


def focused_box(answer: dict[str, Any]) -> dict[str, Any]:
    """The focused textbox Group of the page."""
    [box] = find_all(
        our_page(answer, PAGE), lambda e: e.get("subrole") == "textbox" and bool(e.get("focused"))
    )
    return box


async def shared_after_typing(
    tab: Page, host: HostClient, shared: Shared, element_id: str, text: str
) -> dict[str, Any]:
    """Type `text` into the field, select it with Shift+Home, and return `current`."""
    await type_into(tab, element_id, text)
    await select_to_start(tab)
    return await ask(host, shared)


def assert_shared(answer: dict[str, Any], text: str) -> None:
    """The focused field's content and its selection are in `current` (an ordinary field)."""
    box = focused_box(answer)
    assert text in box["content"][0]["text"], box
    assert [t["content"][0]["text"] for t in selected_texts(answer)] == [text]


def assert_secret(answer: dict[str, Any], text: str) -> None:
    """The focused field is there with its role but without content or selection, and `text` is
    nowhere in `current`."""
    box = focused_box(answer)
    assert "content" not in box and "children" not in box, box
    assert selected_texts(answer) == []
    assert text not in str(answer)


async def test_a_revealed_password_stays_secret(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    await opened(tab, page_server)
    # The control: an ordinary field typed and selected the same way is shared.
    assert_shared(await shared_after_typing(tab, host, shared, "plain", "Ada-nick"), "Ada-nick")

    await type_into(tab, "pw", "hunter2-Eye")
    await click_into(tab, element_js("eye"))  # the "show password" eye: type=password → text
    assert await tab.evaluate("document.getElementById('pw').type") == "text"
    await click_into(tab, element_js("pw"))
    await tab.keyboard.press("End")
    await select_to_start(tab)
    # The user really has the revealed password selected.
    selected = await tab.evaluate("(() => { const f = document.activeElement;"
                                  " return [f.id, f.selectionStart, f.selectionEnd]; })()")
    assert selected == ["pw", 0, 11]
    assert_secret(await ask(host, shared), "hunter2-Eye")
    # Hidden again and shown again: still secret.
    await click_into(tab, element_js("eye"))
    await click_into(tab, element_js("eye"))
    await click_into(tab, element_js("pw"))
    await select_to_start(tab)
    assert_secret(await ask(host, shared), "hunter2-Eye")


async def test_an_autofilled_password_revealed_before_it_was_focused_stays_secret(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    """The password manager filled the field (no focus, no typing: nothing read it while it was a
    password); the user clicks the eye, then into the field, and selects."""
    await opened(tab, page_server)
    await tab.evaluate("document.getElementById('pw').value = 'autofilled-Pass'")
    await click_into(tab, element_js("eye"))
    await click_into(tab, element_js("pw"))
    await tab.keyboard.press("End")
    await select_to_start(tab)
    assert_secret(await ask(host, shared), "autofilled-Pass")


@pytest.mark.parametrize(
    ("element_id", "typed"),
    [
        ("current", "cur-Secret-1"),  # type=text, autocomplete=current-password
        ("new", "new-Secret-2"),  # type=text, autocomplete=new-password
        ("cardnumber", "4111111111111111"),  # autocomplete=off, found by its <label>
        ("cvc", "737"),  # by name
        ("pin", "4242"),  # by aria-label
        ("sms", "908172"),  # by placeholder
        ("maskedinput", "masked-77"),  # -webkit-text-security: disc, no telling name
        ("kn", "4111111111111111"),  # <label>Kartennummer, a neutral name
        ("bc", "553311"),  # <label>Bestätigungscode
        ("twofa", "771204"),  # placeholder "2FA" alone
        ("numcarte", "4000056655665556"),  # aria-label "Numéro de carte"
    ],
)
async def test_secret_inputs_share_no_content_and_no_selection(
    tab: Page, page_server: str, host: HostClient, shared: Shared, element_id: str, typed: str
) -> None:
    await opened(tab, page_server)
    assert_secret(await shared_after_typing(tab, host, shared, element_id, typed), typed)


@pytest.mark.parametrize("element_id", ["pineapple", "spinner", "kartenansicht", "spinat", "optin"])
async def test_fields_whose_names_only_contain_a_secret_word_are_shared(
    tab: Page, page_server: str, host: HostClient, shared: Shared, element_id: str
) -> None:
    await opened(tab, page_server)
    assert_shared(await shared_after_typing(tab, host, shared, element_id, "Fruit-42"), "Fruit-42")


@pytest.mark.parametrize(
    ("element_id", "typed"), [("cardedit", "4000056655665556"), ("maskededit", "Masked-Edit-9")]
)
async def test_secret_contenteditables_share_no_content_and_no_selection(
    tab: Page, page_server: str, host: HostClient, shared: Shared, element_id: str, typed: str
) -> None:
    await opened(tab, page_server)
    # The control: an ordinary contenteditable typed and selected the same way is shared.
    assert_shared(await shared_after_typing(tab, host, shared, "ordinaryedit", "Edit-words"), "Edit-words")
    assert_secret(await shared_after_typing(tab, host, shared, element_id, typed), typed)


async def test_a_masked_contenteditable_is_not_the_context_of_a_selection_next_to_it(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    await opened(tab, page_server)
    await type_into(tab, "nextto", "-typed-Xyzzy")
    for element_id, side in (("near-before", "after"), ("near-after", "before")):
        await double_click_word(tab, element_js(element_id), 0, 8)  # "Ordinary"
        answer = await ask_until(
            host, shared, lambda a: len(selected_texts(a)) == 1, f"the double-clicked word in #{element_id}"
        )
        [text] = selected_texts(answer)
        assert text["content"][0]["text"] == "Ordinary"
        context = text["attributes"]
        # The paragraph text on that side is there (the walk went past the field), the field's is not.
        assert "masked one" in context[side], context
        assert "Tr0ub4dor" not in str(answer) and "Xyzzy" not in str(answer), context


async def test_a_selection_across_a_secret_contenteditable_is_not_shared(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    await opened(tab, page_server)
    await type_into(tab, "cardedit", "4000056655665556")
    # A click in the paragraph before the card field, a Shift+click in a paragraph after it.
    await select_between(tab, (element_js("card-before"), 0), (element_js("near-before"), 8))
    assert "4000056655665556" in await tab.evaluate("getSelection().toString()")  # the user selected over it
    answer = await ask(host, shared)
    assert selected_texts(answer) == []
    assert "4000056655665556" not in str(answer)


async def read_page_text(shared: Shared, tab: Page) -> dict[str, Any]:
    """The tab's page text, as the worker reads it: the files injected into the top frame, then
    webctxPageText."""
    answer: dict[str, Any] = await shared[0].worker_eval(
        """async ([url, files]) => {
            const [tab] = await chrome.tabs.query({ url });
            const target = { tabId: tab.id, frameIds: [0] };
            await chrome.scripting.executeScript({ target, files });
            const [{ result }] = await chrome.scripting.executeScript({
                target, func: () => globalThis.webctxPageText({ maxBytes: 65536 }) });
            return result;
        }""",
        [tab.url, page_text_files()],
    )
    return answer


@pytest.mark.parametrize(
    ("page", "source"), [(PAGE, "visible-text"), ("/secret_article.html", "readability")]
)
async def test_page_text_has_no_secret_contenteditable(
    tab: Page, page_server: str, shared: Shared, page: str, source: str
) -> None:
    await tab.goto(f"{page_server}{page}")
    await tab.bring_to_front()
    await type_into(tab, "cardedit", "4000056655665556")
    await type_into(tab, "maskededit", "Masked-Edit-9")
    await type_into(tab, "ordinaryedit", "Edit-words")
    answer = await read_page_text(shared, tab)
    markdown: str = answer["markdown"]
    assert answer["source"] == source
    assert "Edit-words" in markdown, markdown  # an ordinary contenteditable's text is page text
    for secret in ("4000056655665556", "Masked-Edit-9", "Tr0ub4dor"):
        assert secret not in markdown, markdown
