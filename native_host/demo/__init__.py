"""`webctx demo`: a real browser with the extension on a bundled page, read back as a desktop host would.

`browsers.py` finds a Chromium-family browser (install/programs.py's table), `page.py` serves
`demo.html` on 127.0.0.1, `runner.py` launches the browser with a throwaway profile, `devtools.py`
loads the extension over the browser's DevTools pipe, and `runner.py` waits for its provider and
the page's selection, and cleans everything up again.
"""
