"""The page-text extraction on its own, in a real Chromium (design: docs/internals/extension.md
"The page's text"): the extension's service worker injects the files as the worker does for a
`page.read` (`chrome.scripting.executeScript` with `files`, the isolated world, frame 0), then calls
`webctxPageText({maxBytes})`, on small generated pages:

- an article (headings, a list, tables, links, images, form fields with typed secrets): Markdown
  from Readability + turndown, no field value anywhere, the live page unchanged;
- a long article: cut to maxBytes UTF-8 bytes on a code point, `bytes` the full length;
- a 200,000-element page (over Readability's element cap) and a 38,500-element one (just under it,
  Readability's worst case here): bounded time, printed;
- a 5,000-deep DOM: no crash, the text is there;
- text the page's stylesheet hides, tag characters, text that shows markup
  (tests/support/hidden_text_pages.py), in an article and in a page without one: only what the
  user sees, after they scrolled the page and a box in it.

The end-to-end reads through the native host (`resources/read`) are tested elsewhere; this module is
the extraction's own test. One browser for the module; times print with `-s` (or `-rP`).

Just over 400 lines: every case shares that browser and one folder of pages (the hiding pages
themselves are in tests/support/hidden_text_pages.py).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Page

from tests.e2e.conftest import launched_browser
from tests.e2e.harness import RunningBrowser, isolated_environment
from tests.support.hidden_text_pages import HIDDEN, SHOWN, TAGS, hiding_article, hiding_scrap
from tests.support.pages import served_pages

pytestmark = pytest.mark.asyncio(loop_scope="module")

PAGE_TEXT_FILES = [
    "vendor/readability/Readability.js",
    "vendor/turndown/turndown.js",
    "vendor/turndown-plugin-gfm/turndown-plugin-gfm.js",
    "content/utf8_cap.js",
    "content/secret_fields.js",
    "content/hidden_text.js",
    "content/text_clean.js",
    "content/composed_clone.js",
    "content/page_text.js",
]
"""What the worker injects for a text read, in order (content/page_text.js's header)."""

SECRETS = ("hunter2-attr", "hunter2-typed", "csrf-secret-1234", "4111111111111111", "otp-987654",
           "draft-typed-in-textarea", "typed-in-search", "textarea-default-text")
"""Values of form fields: none may appear in the text."""

LOREM = ("Tidal power converts the energy of the tides into electricity. The first large tidal "
         "station opened in 1966 on the Rance estuary in Brittany, and it still runs today. ")

ARTICLE = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tidal power | Energy Wiki</title></head>
<body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article>
  <h1>Tidal power</h1>
  <p>{LOREM * 3}</p>
  <h2>History</h2>
  <p>{LOREM * 2} See <a href="/rance">the Rance station</a> for more.</p>
  <ul>
    <li>Rance, France</li>
    <li>Sihwa Lake, South Korea</li>
  </ul>
  <table>
    <thead>
      <tr><th>Station</th><th>Capacity (MW)</th></tr>
    </thead>
    <tbody>
      <tr><td>Sihwa Lake</td><td>254</td></tr>
      <tr><td>Rance</td><td>240 | peak</td></tr>
    </tbody>
  </table>
  <table><tr><td>no heading A</td><td>no heading B</td></tr><tr><td>C</td><td>D</td></tr></table>
  <p>A picture: <img src="/tide.png" alt="the tide"> and an inline one
     <img src="data:image/png;base64,{'A' * 4000}" alt="inline"></p>
  <pre><code>energy = 0.5 * area * density * g * range ** 2</code></pre>
  <h2>Sign up</h2>
  <form>
    <input type="password" id="pw" value="hunter2-attr">
    <input type="hidden" name="csrf" value="csrf-secret-1234">
    <input id="card" autocomplete="cc-number" value="4111111111111111">
    <input id="otp" autocomplete="one-time-code" value="otp-987654">
    <input id="search" type="search">
    <textarea id="draft"></textarea>
  </form>
  <p>{LOREM}</p>
</article>
</body></html>
"""

LOGIN = """<!doctype html><html><head><meta charset="utf-8"><title>Sign in</title></head><body>
<h1>Sign in</h1>
<form>
  <label>Password <input type="password" id="pw" value="hunter2-attr"></label>
  <input type="hidden" name="csrf" value="csrf-secret-1234">
  <label>Card <input id="card" autocomplete="cc-number" value="4111111111111111"></label>
  <label>Code <input id="otp" autocomplete="one-time-code" value="otp-987654"></label>
  <label>Search <input id="search" type="search"></label>
  <label>Note <textarea id="draft">textarea-default-text</textarea></label>
</form></body></html>
"""
"""A page with no article: the visible text, which must not show a field's value either."""

LONG = (
    "<!doctype html><html><head><meta charset='utf-8'><title>Long</title></head><body><article>"
    "<h1>Long</h1>"
    + "".join(f"<p>Paragraph {i}: {LOREM} Emoji 😀 ünïcode €.</p>" for i in range(1500))
    + "</article></body></html>"
)


def many_elements(count: int) -> str:
    """A flat page of about `count` elements: sections of a heading and paragraphs with links and
    emphasis (5 elements per paragraph)."""
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>Many</title></head><body><main>"]
    for i in range(count // 5):
        if i % 20 == 0:
            parts.append(f"<h2>Section {i // 20}</h2>")
        parts.append(f"<p>Item {i} <a href='/x{i}'>link</a> <em>some</em> <b>text</b> <span>here</span></p>")
    parts.append("</main></body></html>")
    return "".join(parts)


def many_cards(count: int) -> str:
    """A page of about `count` elements in nested cards (7 each): Readability's slower shape (it
    scores every ancestor of every paragraph), so the worst case just under the element cap."""
    cards = "".join(
        f"<div class='card'><div class='body'><h3>Card {i}</h3><p>Item {i} words words words, more"
        f" words, <a href='/x{i}'>link</a>, text.</p><ul><li>point</li></ul></div></div>"
        for i in range(count // 7)
    )
    head = "<!doctype html><html><head><meta charset='utf-8'><title>Cards</title></head>"
    return f"{head}<body><main>{cards}</main></body></html>"


# An article with one table row of 30,000 cells: turndown-plugin-gfm scans the row for each cell's
# index (n²), which kept the tab busy past the host's 10 s deadline.
WIDE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>Wide</title></head><body><article>"
    f"<h1>Wide</h1><p>{LOREM}</p><p>{LOREM}</p><table><tr>"
    + "".join(f"<td>c{i}</td>" for i in range(30_000))
    + "</tr><tr><td>second row</td></tr></table></article></body></html>"
)


# The HTML parser stops nesting at 512 levels, so the deep tree is built by the page's own script;
# of spans, because Chromium's renderer itself crashes laying out ~3,000 nested blocks (a div page
# that deep cannot be shown at all: checked without the extension).
DEEP = f"""<!doctype html><html><head><meta charset="utf-8"><title>Deep</title></head><body>
<p>{LOREM}</p><div id="root"></div>
<script>
  let node = document.getElementById("root");
  for (let i = 0; i < 5000; i++) node = node.appendChild(document.createElement("span"));
  node.textContent = "deepest text here";
</script></body></html>"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The generated pages over http on 127.0.0.1."""
    folder = tmp_path_factory.mktemp("page-text-pages")
    pages = {"article.html": ARTICLE, "login.html": LOGIN, "long.html": LONG, "deep.html": DEEP,
             "wide.html": WIDE, "hiding.html": hiding_article(), "scrap.html": hiding_scrap(),
             "big.html": many_elements(200_000).replace(
                 "<main>", f"<main><p>Shown &lt;img src=x onerror=alert(3)&gt;{TAGS}</p>", 1),
             "under.html": many_cards(38_500)}
    for name, text in pages.items():
        (folder / name).write_text(text, encoding="utf-8")
    with served_pages(folder) as url:
        yield url


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def running(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[RunningBrowser]:
    """The module's Chromium with the extension."""
    udd = tmp_path_factory.mktemp("page-text") / "udd"
    with isolated_environment(udd.parent):
        async with launched_browser(udd) as browser:
            yield browser


async def read_text(running: RunningBrowser, page: Page, max_bytes: int) -> dict[str, Any]:
    """Inject the files into the page's top frame from the service worker, as the worker does, and
    call webctxPageText; `ms` is the call's own time in the page."""
    answer: dict[str, Any] = await running.worker_eval(
        """async ([url, files, maxBytes]) => {
            const [tab] = await chrome.tabs.query({ url });
            const target = { tabId: tab.id, frameIds: [0] };
            await chrome.scripting.executeScript({ target, files });
            const [{ result }] = await chrome.scripting.executeScript({
                target,
                func: (o) => {
                    const start = performance.now();
                    const answer = globalThis.webctxPageText(o);
                    return { ...answer, ms: performance.now() - start };
                },
                args: [{ maxBytes }],
            });
            return result;
        }""",
        [page.url, PAGE_TEXT_FILES, max_bytes],
    )
    return answer


async def opened(running: RunningBrowser, url: str) -> Page:
    page = await running.context.new_page()
    await page.goto(url, wait_until="load", timeout=60_000)
    return page


def check_shape(answer: dict[str, Any], max_bytes: int) -> bytes:
    """The contract's invariants; returns the Markdown's UTF-8 (which fails on a lone surrogate)."""
    markdown: str = answer["markdown"]
    encoded = markdown.encode("utf-8")  # strict: a lone surrogate raises here
    assert len(encoded) <= max_bytes
    assert answer["truncated"] == (answer["bytes"] > max_bytes)
    if not answer["truncated"]:
        assert answer["bytes"] == len(encoded)
    return encoded


async def test_an_article_becomes_markdown_without_any_field_value(
    running: RunningBrowser, site: str
) -> None:
    page = await opened(running, f"{site}/article.html")
    await page.fill("#pw", "hunter2-typed")
    await page.fill("#draft", "draft-typed-in-textarea")
    await page.fill("#search", "typed-in-search")
    before = await page.evaluate("document.documentElement.outerHTML")
    answer = await read_text(running, page, 262_144)
    print(f"\narticle: {answer['ms']:.0f} ms, {answer['bytes']} bytes, source {answer['source']}")
    check_shape(answer, 262_144)
    markdown: str = answer["markdown"]
    assert answer["source"] == "readability"
    # Readability's title: the whole <title> when its first part has under 5 words.
    assert answer["title"] == "Tidal power | Energy Wiki"
    assert answer["url"] == f"{site}/article.html"
    # Readability drops the h1 that repeats the title; the title comes first as a heading instead.
    assert markdown.startswith("# Tidal power | Energy Wiki\n\nTidal power converts"), markdown[:200]
    assert "\n## History\n" in markdown
    assert "\n-   Rance, France\n-   Sihwa Lake, South Korea" in markdown  # turndown's list-item spacing
    assert ("| Station | Capacity (MW) |\n| --- | --- |\n| Sihwa Lake | 254 |\n"
            "| Rance | 240 \\| peak |") in markdown
    assert "| no heading A | no heading B |" in markdown and "<table" not in markdown
    assert f"[the Rance station]({site}/rance)" in markdown
    assert f"![the tide]({site}/tide.png)" in markdown
    assert "data:" not in markdown and "AAAA" not in markdown
    assert "```\nenergy = 0.5" in markdown
    for secret in SECRETS:
        assert secret not in markdown, secret
    # The live page is as it was: the work was on a clone.
    assert await page.evaluate("document.documentElement.outerHTML") == before
    assert await page.input_value("#pw") == "hunter2-typed"
    await page.close()


async def test_a_page_without_an_article_gives_its_visible_text_without_field_values(
    running: RunningBrowser, site: str
) -> None:
    page = await opened(running, f"{site}/login.html")
    await page.fill("#pw", "hunter2-typed")
    await page.fill("#draft", "draft-typed-in-textarea")
    await page.fill("#search", "typed-in-search")
    answer = await read_text(running, page, 262_144)
    check_shape(answer, 262_144)
    markdown: str = answer["markdown"]
    assert answer["source"] == "visible-text"
    assert markdown.startswith("# Sign in\n") and "Password" in markdown and "Card" in markdown, markdown
    for secret in SECRETS:
        assert secret not in markdown, secret
    await page.close()


async def test_a_long_article_is_cut_on_a_code_point_and_says_so(running: RunningBrowser, site: str) -> None:
    page = await opened(running, f"{site}/long.html")
    for max_bytes in (65_536, 65_537, 65_538, 65_539):  # every offset of a 4-byte emoji
        answer = await read_text(running, page, max_bytes)
        encoded = check_shape(answer, max_bytes)
        assert answer["source"] == "readability"
        assert answer["truncated"] and answer["bytes"] > 250_000
        assert len(encoded) > max_bytes - 4  # as much as fits
        assert answer["markdown"].startswith("# Long\n")
    # The worker's clamp applies in the page too: below 1 KiB is 1 KiB.
    small = await read_text(running, page, 10)
    assert len(small["markdown"].encode()) <= 1024 and len(small["markdown"].encode()) > 1000
    await page.close()


async def test_a_page_over_the_element_cap_gives_its_visible_text_quickly(
    running: RunningBrowser, site: str
) -> None:
    page = await opened(running, f"{site}/big.html")
    count = await page.evaluate("document.getElementsByTagName('*').length")
    assert count > 200_000
    started = time.monotonic()
    answer = await read_text(running, page, 262_144)
    wall = time.monotonic() - started
    print(f"\n{count} elements: {answer['ms']:.0f} ms in the page, {wall * 1000:.0f} ms with the injection;"
          f" source {answer['source']}, {answer['bytes']} bytes")
    check_shape(answer, 262_144)
    assert answer["source"] == "visible-text"
    assert answer["truncated"]
    # innerText over the cap: still no HTML from text, no tag characters.
    assert answer["markdown"].startswith(
        "# Many\n\nShown &lt;img src=x onerror=alert(3)&gt;\n\n"
        "Section 0\n\nItem 0 link some text here\n\nItem 1 link"
    ), answer["markdown"][:300]
    assert wall < 10, "wide margin for a shared machine; ~1 s expected"
    await page.close()


async def test_a_page_just_under_the_element_cap_goes_through_readability_in_bounded_time(
    running: RunningBrowser, site: str
) -> None:
    page = await opened(running, f"{site}/under.html")
    count = await page.evaluate("document.getElementsByTagName('*').length")
    assert 35_000 < count <= 40_000  # content/page_text.js MAX_ELEMS_TO_PARSE: 40,000
    answer = await read_text(running, page, 262_144)
    print(f"\n{count} elements: {answer['ms']:.0f} ms in the page;"
          f" source {answer['source']}, {answer['bytes']} bytes")
    check_shape(answer, 262_144)
    assert answer["source"] == "readability"
    assert "### Card 1\n" in answer["markdown"]
    # ~1-2 s on an idle 2-core machine; 8.8 s was seen at load 16 on 2 cores (other browsers). The
    # bound is the element cap; this catches only a runaway.
    assert answer["ms"] < 30_000
    await page.close()


async def test_a_5000_deep_dom_does_not_break_the_extraction(running: RunningBrowser, site: str) -> None:
    page = await opened(running, f"{site}/deep.html")
    depth = await page.evaluate(
        "(() => { let n = 0, e = document.getElementById('root');"
        " while (e.firstElementChild) { e = e.firstElementChild; n++; } return n; })()"
    )
    assert depth == 5000
    answer = await read_text(running, page, 262_144)
    print(f"\ndepth {depth}: {answer['ms']:.0f} ms in the page;"
          f" source {answer['source']}, {answer['bytes']} bytes")
    check_shape(answer, 262_144)
    assert "deepest text here" in answer["markdown"]
    assert "Tidal power converts" in answer["markdown"]
    await page.close()



async def test_a_table_row_of_30000_cells_is_read_in_bounded_time(running: RunningBrowser, site: str) -> None:
    page = await opened(running, f"{site}/wide.html")
    started = time.monotonic()
    answer = await read_text(running, page, 262_144)
    wall = time.monotonic() - started
    print(f"\n30,000 cells in a row: {answer['ms']:.0f} ms in the page, {wall * 1000:.0f} ms in all")
    check_shape(answer, 262_144)
    assert answer["source"] == "readability"
    assert "c0 | c1 | c2" in answer["markdown"] and "c29999" in answer["markdown"]
    assert "second row" in answer["markdown"]
    # Before: over 10 s (a timeout), the tab busy for another minute; now well under a second idle.
    assert wall < 8, "wide margin for a shared machine"
    await page.close()


def has_tag_characters(text: str) -> bool:
    """Any Unicode tag character (U+E0000-U+E007F) in `text`."""
    return any(0xE0000 <= ord(c) <= 0xE007F for c in text)


async def test_text_the_page_hides_is_not_in_the_page_text(running: RunningBrowser, site: str) -> None:
    page = await opened(running, f"{site}/hiding.html")
    # The user scrolls the page down and the box to its end (the wheel over it): text above the
    # viewport, in the box and below the fold is still text they can see.
    await page.mouse.move(300, 300)
    await page.mouse.wheel(0, 400)
    await page.wait_for_function("window.scrollY >= 400", timeout=30_000)
    box = await page.locator("#box").bounding_box()
    assert box is not None
    await page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    await page.mouse.wheel(0, 2000)
    await page.wait_for_function(
        "(b => b.scrollTop > 0 && b.scrollTop + b.clientHeight >= b.scrollHeight - 1)"
        "(document.getElementById('box'))",
        timeout=30_000,
    )
    before = await page.evaluate("document.documentElement.outerHTML")
    answer = await read_text(running, page, 262_144)
    print(f"\nhiding article: {answer['ms']:.0f} ms, source {answer['source']}")
    check_shape(answer, 262_144)
    markdown: str = answer["markdown"]
    assert answer["source"] == "readability"
    for kind in (*SHOWN, "below-fold", "lazy-image"):
        assert f"SHOWN-{kind}" in markdown, (kind, markdown)
    leaked = [kind for kind in HIDDEN if f"HIDDEN-{kind}" in markdown]
    assert not leaked, leaked
    assert not has_tag_characters(markdown) and "TAGGED" not in markdown
    assert "Tagged line here ends. Zerowidth softhyphen team 👩‍💻 done." in markdown
    assert "Blank braille and a heart \u2764\ufe0f stay." in markdown, markdown
    # Text that shows markup stays text; code keeps its literal characters.
    assert "&lt;img src=x onerror=alert(1)&gt; as text, and AT&amp;T too." in markdown
    assert "<img" not in markdown
    assert "`<br> & co`" in markdown
    assert "```\nif (a < b && c > d) { return; }\n```" in markdown
    assert await page.evaluate("document.documentElement.outerHTML") == before
    await page.close()


async def test_a_page_without_an_article_drops_hidden_text_too(running: RunningBrowser, site: str) -> None:
    page = await opened(running, f"{site}/scrap.html")
    answer = await read_text(running, page, 262_144)
    check_shape(answer, 262_144)
    markdown: str = answer["markdown"]
    assert answer["source"] == "visible-text"
    assert markdown.startswith("# Scrap &lt;b&gt;\n") and answer["title"] == "Scrap <b>", markdown
    assert "SHOWN-short" in markdown and "SHOWN-summary" in markdown, markdown
    assert "HIDDEN" not in markdown, markdown
    assert not has_tag_characters(markdown)
    assert "&lt;img src=x onerror=alert(2)&gt;" in markdown and "<img" not in markdown
    await page.close()
