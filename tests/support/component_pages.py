"""Pages built from the real npm releases in node_modules (package.json pins them), generated into
a folder at test-session time: Lit components (open, closed and nested shadow roots, slots;
tests/pages/components/lit_cards.js bundled with esbuild), a TinyMCE editor (its iframe), and
same-origin, `srcdoc` and `about:blank` frames. Used by tests/e2e/test_page_text_components.py and
bench/page_text_components.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NODE_MODULES = ROOT / "node_modules"
LIT_SOURCE = ROOT / "tests" / "pages" / "components" / "lit_cards.js"

HEAD = "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{title}</title></head><body>"


def card(n: int | str, slotted: str = "") -> str:
    """One `<wc-card>`: its shadow text names `n`; `slotted` is its light DOM (shown in its slot)."""
    return f"<wc-card heading='Card {n}' n='{n}'>{slotted}</wc-card>"


def lit_page(title: str, body: str) -> str:
    """An HTML page of `body` that loads the bundled components."""
    return (
        HEAD.format(title=title)
        + body
        + "<script type='module' src='lit_cards.bundle.js'></script></body></html>"
    )


def many_cards(count: int) -> str:
    """A page of `count` cards (every tenth one closed-root, every tenth an outer with a nested card)."""
    parts = ["<h1>Components</h1>"]
    for i in range(count):
        if i % 10 == 5:
            parts.append("<wc-closed></wc-closed>")
        elif i % 10 == 7:
            parts.append("<wc-outer></wc-outer>")
        else:
            parts.append(card(i, f"<span>light text {i}</span>"))
    return lit_page("Many components", "".join(parts))


LIT = lit_page(
    "Lit components",
    "<h1>Components</h1><p>Light words before.</p>"
    + card(1, "<span>slotted light words</span><span slot='nowhere'>unslotted light words</span>")
    + "<wc-closed></wc-closed><wc-outer></wc-outer><p>Light words after.</p>",
)

TINYMCE = (
    HEAD.format(title="TinyMCE")
    + "<h1>Notes</h1><textarea id='editor'>&lt;p&gt;Editor paragraph about tidal power.&lt;/p&gt;"
    "&lt;p&gt;A second editor paragraph.&lt;/p&gt;</textarea><p>Below the editor.</p>"
    "<script src='tinymce/tinymce.min.js'></script><script>"
    "tinymce.init({selector: '#editor', license_key: 'gpl', menubar: false, promotion: false,"
    " init_instance_callback: () => { document.body.dataset.ready = '1'; }});"
    "</script></body></html>"
)

FRAMES = (
    HEAD.format(title="Frames") + "<p>Top words before.</p>"
    "<iframe id='same' src='child.html'></iframe>"
    "<iframe id='srcdoc' srcdoc='&lt;p&gt;Srcdoc frame words.&lt;/p&gt;'></iframe>"
    "<iframe id='blank'></iframe>"
    "<iframe id='hidden' style='display: none' srcdoc='&lt;p&gt;Hidden frame words.&lt;/p&gt;'></iframe>"
    "<p>Top words after.</p>"
    "<script>addEventListener('load', () => {"
    " const doc = document.getElementById('blank').contentDocument;"
    " doc.body.innerHTML = '<p>Blank frame words.</p>'; document.body.dataset.ready = '1'; });</script>"
    "</body></html>"
)

CHILD = HEAD.format(title="Child") + "<p>Same-origin frame words.</p></body></html>"


def build(folder: Path, cards: int = 200) -> Path:
    """Write the pages into `folder` (lit.html, many.html of `cards` cards, tinymce.html,
    frames.html, child.html), bundle the components (esbuild from node_modules) and link
    node_modules/tinymce there. Returns `folder`. CalledProcessError when esbuild fails."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            str(NODE_MODULES / ".bin" / "esbuild"),
            str(LIT_SOURCE),
            "--bundle",
            "--format=esm",
            "--log-level=warning",
            f"--outfile={folder / 'lit_cards.bundle.js'}",
        ],
        check=True,
        cwd=ROOT,
        timeout=120,
    )
    pages = {
        "lit.html": LIT,
        "many.html": many_cards(cards),
        "tinymce.html": TINYMCE,
        "frames.html": FRAMES,
        "child.html": CHILD,
    }
    for name, text in pages.items():
        (folder / name).write_text(text, encoding="utf-8")
    link = folder / "tinymce"
    if not link.exists():
        link.symlink_to(NODE_MODULES / "tinymce", target_is_directory=True)
    return folder
