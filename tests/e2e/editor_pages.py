"""Test pages with real code editors, built at test time from the npm packages in node_modules
(package.json pins them): Monaco from its AMD build (`monaco-editor/min/vs`, linked, not copied),
CodeMirror 6 bundled by esbuild. Nothing built is committed.

Each page sets `document.title = "ready"` once its editor is up and keeps the editor on `window.editor`
(the tests ask it where lines are drawn and what it holds); the document is on `window.doc`.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NODE_MODULES = ROOT / "node_modules"

MONACO_LINES = 1000
"""Lines of the Monaco pages' document (`line 0 alpha beta gamma`, …)."""
CODEMIRROR_LINES = 1509
"""Lines of the CodeMirror page's document: more than its viewport renders (virtualised)."""

BOX_STYLE = "position:absolute;left:40px;top:60px;width:700px;height:400px"
"""Where each page puts its editor, CSS px."""

MONACO_HTML = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>loading</title></head>
<body style="margin:0"><div id="host" style="{BOX_STYLE}"></div>
<script src="vs/loader.js"></script>
<script>
const lines = []; for (let i = 0; i < {MONACO_LINES}; i++) lines.push(`line ${{i}} alpha beta gamma`);
window.doc = lines.join("\\n");
require.config({{ paths: {{ vs: "vs" }} }});
require(["vs/editor/editor.main"], () => {{
  const options = {{ value: window.doc, language: "plaintext", minimap: {{ enabled: false }} }};
  if (location.search.includes("textarea")) options.editContext = false;
  window.editor = monaco.editor.create(document.getElementById("host"), options);
  // As an ESM build leaves it: no global to reach the editor's model through.
  if (location.search.includes("noglobal")) window.monaco = undefined;
  document.title = "ready";
}});
</script></body></html>
"""

CODEMIRROR_ENTRY = f"""import {{ EditorView, basicSetup }} from "codemirror";
import {{ javascript }} from "@codemirror/lang-javascript";
const lines = [];
for (let i = 0; i < {CODEMIRROR_LINES}; i++) {{
  lines.push(`const value${{i}} = compute(${{i}}, "line ${{i}} of the document");`);
}}
window.doc = lines.join("\\n");
window.editor = new EditorView({{
  doc: window.doc,
  extensions: [basicSetup, javascript()],
  parent: document.getElementById("host"),
}});
document.title = "ready";
"""

CODEMIRROR_HTML = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>loading</title>
<style>#host .cm-editor {{ height: 100%; }}</style></head>
<body style="margin:0"><div id="host" style="{BOX_STYLE}"></div>
<script src="codemirror.js"></script></body></html>
"""


def build_editor_pages(folder: Path) -> None:
    """Write `monaco.html` (`?textarea`: Monaco's `editContext: false` mode; `noglobal`: no
    `window.monaco`) and `codemirror.html`
    into `folder`, with what they load: a `vs` link to Monaco's AMD build and `codemirror.js`
    (esbuild, minified, about 400 KB). Raises `subprocess.CalledProcessError` when esbuild fails."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vs").symlink_to(NODE_MODULES / "monaco-editor" / "min" / "vs", target_is_directory=True)
    (folder / "monaco.html").write_text(MONACO_HTML)
    entry = folder / "codemirror_entry.js"
    entry.write_text(CODEMIRROR_ENTRY)
    subprocess.run(
        [
            str(NODE_MODULES / ".bin" / "esbuild"),
            str(entry),
            "--bundle",
            "--minify",
            "--format=iife",
            f"--outfile={folder / 'codemirror.js'}",
            "--log-level=warning",
        ],
        check=True,
        capture_output=True,
        timeout=120,
        env={**os.environ, "NODE_PATH": str(NODE_MODULES)},
    )
    (folder / "codemirror.html").write_text(CODEMIRROR_HTML)
