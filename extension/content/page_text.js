// The page's readable text as Markdown (design.md §2 "The page on demand"; design:
// docs/internals/extension.md "The page's text"). A classic script of the isolated world, top frame only,
// injected on demand by the worker, after the files it uses, in this order (PAGE_TEXT_FILES):
//
//   vendor/readability/Readability.js               Readability   (the article, Firefox Reader View)
//   vendor/turndown/turndown.js                     TurndownService (HTML → Markdown)
//   vendor/turndown-plugin-gfm/turndown-plugin-gfm.js  turndownPluginGfm (tables)
//   content/utf8_cap.js                             webctxUtf8    (the UTF-8 cut, shared with the worker)
//   content/secret_fields.js                        webctxSecret  (which fields are secret, shared with selection.js)
//   content/hidden_text.js                          webctxHidden  (what the user cannot see, from the live page)
//   content/text_clean.js                           webctxTextClean (invisible characters, HTML in text)
//   content/composed_clone.js                       webctxComposed (shadow roots and reachable frames in the clone)
//   content/page_text.js                            webctxPageText (this file)
//
// then calls `globalThis.webctxPageText({maxBytes})`. Just over 400 lines: the clone-to-Markdown
// pass and its bounds are one rule; shadow roots and frames are composed_clone.js's. Not in the manifest's content_scripts: a page
// load pays nothing; only a read does. Every file is safe to inject again (no top-level let/const).
//
// What it never does: change the live page (it works on a clone: no script runs, no image loads in
// a document without a browsing context), or read what the user typed: every text field of the clone
// (input, textarea, select) is removed before anything reads it, and the visible-text fallback reads
// a clone stripped the same way, or over the element cap `innerText`, which has no field values. A
// secret contenteditable (content/secret_fields.js) is removed from the clone too, and its text cut
// out of `innerText`'s. The work is bounded: Readability runs only on pages of at
// most MAX_ELEMS_TO_PARSE elements, and a table wider than MAX_ROW_CELLS skips the GFM rule (n² in
// a row's cells); beyond that, and whenever Readability finds nothing, throws
// (a 5,000-deep DOM overflows the stack of the recursive parts: RangeError) or finds a scrap, the
// answer is the page's visible text, cut early.
//
// Only what the user can see: on a page within the element cap, the parts its styles hide
// (content/hidden_text.js, judged on the live page) are removed from the clone before anything
// reads it, invisible characters are dropped from the text, and `<`, `>`, `&` of the page's text
// are written as entities (content/text_clean.js).

(function () {
  "use strict";

  /**
   * Readability runs on pages of at most this many elements (its `maxElemsToParse`, which it checks
   * before any work; we count first, so a bigger page is not even cloned) and a bigger page gives its
   * visible text. Readability + turndown grow faster than linearly, and faster on nested markup
   * (Readability scores every ancestor of every paragraph). Measured on a 2-core VM shared with other
   * browsers (load 12-28, so several times an idle machine's): in the main world, flat pages 0.7 s at
   * 40,000 elements, 2.7 s at 100,000; nested cards 0.85 s at 35,000, 2.2 s at 52,000, 4.5 s at
   * 87,000; in the isolated world, where this runs, about 2x that. 40,000 keeps a read well inside
   * the host's 10 s deadline on a slow or busy machine, and a long real article fits (a long
   * Wikipedia page has some 20,000-40,000 elements). tests/e2e/test_page_text_extraction.py prints
   * the time of a nested page just under the cap.
   */
  const MAX_ELEMS_TO_PARSE = 40_000;
  /**
   * A table with a row of more cells than this is written as one paragraph per row, not as a GFM
   * table: turndown-plugin-gfm finds each cell's index by scanning its row, so a row of n cells
   * costs n² (10,000 cells: 3 s; 39,000: the tab busy for over a minute).
   * 100 columns is wider than any table a reader reads as a table.
   */
  const MAX_ROW_CELLS = 100;
  /** An article whose text is shorter than this (UTF-16 units) is a scrap: take the visible text. */
  const MIN_ARTICLE_CHARS = 200;
  /** Link and image URLs longer than this are dropped (the text stays): data:/blob: URLs can be megabytes. */
  const MAX_LINK_CHARS = 2048;
  /** Caps on the title and url the answer carries, UTF-8 bytes (the worker caps them again for the tree). */
  const MAX_TITLE_BYTES = 4096;
  const MAX_URL_BYTES = 8192;
  /** The worker's clamp of `maxBytes` (design16 "page.read": [1 KiB, 4 MiB]), applied here too. */
  const MIN_BYTES = 1024;
  const MAX_BYTES = 4 * 1024 * 1024;

  /**
   * @typedef {object} PageText
   * @property {string} markdown  at most `maxBytes` bytes of UTF-8, well-formed, cut on a code point
   * @property {boolean} truncated  the full text was longer than `maxBytes`
   * @property {number} bytes  the full Markdown's UTF-8 length, before the cut
   * @property {"readability" | "visible-text"} source  which way the text was found
   * @property {string} title  the article's title, else document.title (well-formed, capped)
   * @property {string} url  location.href (well-formed, capped)
   * @property {{nonce: string, marks: Array<{marker: string, token: string}>}} [frames]  with
   *   `frames: true`: the markers standing in the Markdown for frames out of reach (another
   *   origin), each with its document's token; the worker puts each frame's text there
   */

  /**
   * The page's readable text as Markdown, `# <title>` first.
   * @param {{maxBytes?: number, frames?: boolean, heading?: boolean}} [options]  maxBytes: cap of
   *   `markdown` in UTF-8 bytes (default 256 KiB); frames: mark the frames out of reach (see
   *   PageText `frames`); heading: false leaves the `# <title>` out (a frame's text)
   * @returns {PageText}
   */
  function webctxPageText(options) {
    const composed = /** @type {{markers: () => NonNullable<typeof frameMarks>} | undefined} */ (/** @type {any} */ (globalThis).webctxComposed);
    frameMarks = options?.frames && composed ? composed.markers() : null;
    const requested = Number(options?.maxBytes ?? 256 * 1024);
    const maxBytes = Number.isFinite(requested) ? Math.min(MAX_BYTES, Math.max(MIN_BYTES, Math.floor(requested))) : 256 * 1024;
    // A file missing from the injection is the worker's bug: say which, rather than answer with
    // the visible text as if the page had no article.
    const missing = ["Readability", "TurndownService", "turndownPluginGfm", "webctxUtf8", "webctxSecret", "webctxHidden", "webctxTextClean", "webctxComposed"].filter(
      (name) => !(/** @type {any} */ (globalThis)[name]),
    );
    if (missing.length > 0) throw new Error(`webctx page text: ${missing.join(", ")} not injected before page_text.js`);
    const utf8 = /** @type {{capUtf8: (t: string, n: number) => string, utf8Length: (t: string) => number}} */ (
      /** @type {any} */ (globalThis).webctxUtf8
    );
    // A page may set a title of megabytes: cut its head first (units ≥ bytes), then the bytes.
    const shortTitle = (/** @type {string} */ text) =>
      utf8.capUtf8(oneLine(textClean().stripInvisible(text.slice(0, MAX_TITLE_BYTES))).toWellFormed(), MAX_TITLE_BYTES);
    const pageTitle = shortTitle(document.title ?? "");
    /** @type {{title: string, markdown: string} | null} */
    let article = null;
    try {
      article = readable();
    } catch {
      // No article: Readability refused (too many elements) or threw, turndown threw, or the DOM is
      // too deep for their recursion (RangeError). The visible text below is the answer then.
      article = null;
    }
    const title = (article && shortTitle(article.title)) || pageTitle;
    const body = textClean().stripInvisible(article ? article.markdown : visibleText());
    // The heading is Markdown: its `<`, `>`, `&` as entities too (the `title` field stays plain).
    const heading = /^#{1,6} /.test(body) || !title || options?.heading === false ? "" : `# ${textClean().escapeHtmlText(title)}\n\n`;
    const bytes = utf8.utf8Length(heading) + utf8.utf8Length(body);
    // Cut early: the first maxBytes code units hold at least the first maxBytes bytes, so only they
    // are made well-formed and cut (a page-sized string is not copied again). A pair split at that
    // early cut cannot survive the byte cut: it would need more than maxBytes bytes before it.
    const head = heading + (body.length > maxBytes ? body.slice(0, maxBytes) : body);
    const markdown = utf8.capUtf8(head.toWellFormed(), maxBytes);
    /** @type {PageText} */
    const answer = {
      markdown,
      truncated: bytes > maxBytes,
      bytes,
      source: article ? "readability" : "visible-text",
      title,
      url: utf8.capUtf8(location.href.toWellFormed(), MAX_URL_BYTES),
    };
    if (frameMarks && frameMarks.frames.length > 0) answer.frames = { nonce: frameMarks.nonce, marks: frameMarks.frames };
    frameMarks = null;
    return answer;
  }

  /**
   * This read's markers for the frames out of reach (content/composed_clone.js `markers`), when
   * asked for (`frames: true`).
   * @type {{nonce: string, frames: Array<{marker: string, token: string}>, mark: (frame: Element) => string | null} | null}
   */
  let frameMarks = null;

  /**
   * Readability on a clone of the document, then turndown (+ GFM tables). Null when there is no
   * article worth the name; throws what Readability or turndown throw.
   * @returns {{title: string, markdown: string} | null}
   */
  function readable() {
    // Counted on the live document first, so a huge page is not cloned for nothing.
    if (document.getElementsByTagName("*").length > MAX_ELEMS_TO_PARSE) return null;
    const clone = visibleClone();
    stripFields(clone);
    stripHeavyUrls(clone);
    const Readability = /** @type {any} */ (globalThis).Readability;
    const found = new Readability(clone, {
      maxElemsToParse: MAX_ELEMS_TO_PARSE,
      // The article's element itself, not its HTML: turndown takes a node, so nothing is serialised
      // and parsed again.
      serializer: (/** @type {Element} */ element) => element,
    }).parse();
    if (!found || !found.content || (found.textContent ?? "").trim().length < MIN_ARTICLE_CHARS) return null;
    const content = /** @type {Element} */ (found.content);
    // Readability turns lazy images' data-src into src: check the URLs again.
    stripHeavyUrls(content);
    giveTablesAHeadingRow(content);
    const markdown = converter().turndown(content).trim();
    if (!markdown) return null;
    return { title: typeof found.title === "string" ? found.title : "", markdown };
  }

  /**
   * A clone of the document without what its styles hide from the user (content/hidden_text.js),
   * decided on the live page just before: nothing runs between the clone and the walk, so the two
   * trees are the same. Callers bound the page's elements (MAX_ELEMS_TO_PARSE).
   * @returns {Document}
   */
  function visibleClone() {
    const secrets = secretEditors();
    const clone = /** @type {Document} */ (document.cloneNode(true));
    // Found before pruning (their paths are the unpruned clone's), removed after (pruning walks
    // the live page and the clone side by side).
    const secretTwins = twinsOf(clone, secrets);
    const hidden = /** @type {{pruneHidden: (live: Element, clone: Element) => number}} */ (
      /** @type {any} */ (globalThis).webctxHidden
    );
    const composed = /** @type {{collect: (live: Element, clone: Element) => unknown, fill: (found: unknown, options: {prune: (live: Element, clone: Element) => number, unreachable?: (frame: Element) => string | null}) => number}} */ (
      /** @type {any} */ (globalThis).webctxComposed
    );
    // Shadow roots and reachable frames (content/composed_clone.js): noted before pruning (a
    // parallel walk), folded in after it.
    const found = document.body && clone.body ? composed.collect(document.body, clone.body) : null;
    if (document.body && clone.body) hidden.pruneHidden(document.body, clone.body);
    for (const twin of secretTwins) if (twin instanceof Element) twin.remove();
    if (found) composed.fill(found, { prune: hidden.pruneHidden, unreachable: frameMarks?.mark });
    return clone;
  }

  /** @returns {{stripInvisible: (t: string) => string, escapeHtmlText: (t: string) => string}} */
  function textClean() {
    return /** @type {any} */ (globalThis).webctxTextClean;
  }

  /**
   * Remove every text field from the clone, and the value attribute of the checkboxes and radio
   * buttons left (kept only so GFM task lists show "[x]"). Nothing the user typed, and no default
   * value (a hidden CSRF token, a prefilled card number) reaches the text. Covers the fields
   * design.md §2 never reports (password, autocomplete cc-* and one-time-code) and every other field.
   * @param {Document} doc
   */
  function stripFields(doc) {
    for (const element of doc.querySelectorAll(
      'textarea, select, input:not([type="checkbox" i]):not([type="radio" i]), [autocomplete*="cc-" i], [autocomplete~="one-time-code" i]',
    )) element.remove();
    for (const input of doc.querySelectorAll("input[value]")) input.removeAttribute("value");
  }

  /**
   * The secret contenteditable hosts of the live document (content/secret_fields.js decides: a
   * masked one, a card field by its label, …); a clone cannot say, it has no computed style.
   * @returns {HTMLElement[]}
   */
  function secretEditors() {
    const secret = /** @type {WebctxSecretPart} */ (/** @type {any} */ (globalThis).webctxSecret);
    return [...document.querySelectorAll("[contenteditable]")].filter(
      /** @returns {element is HTMLElement} */
      (element) =>
        element instanceof HTMLElement &&
        element.isContentEditable &&
        !element.parentElement?.isContentEditable &&
        secret.isSecretField(element),
    );
  }

  /**
   * The counterpart in `clone` (a clone of the live document, made after `hosts` were found) of
   * each live host: the node at the same child-index path.
   * @param {Document} clone @param {HTMLElement[]} hosts
   * @returns {Array<Node | undefined>}
   */
  function twinsOf(clone, hosts) {
    return hosts.map((host) => {
      /** @type {number[]} */
      const path = [];
      for (let node = /** @type {Node} */ (host); node.parentNode; node = node.parentNode) {
        path.push(Array.prototype.indexOf.call(node.parentNode.childNodes, node));
      }
      /** @type {Node | undefined} */
      let twin = clone;
      for (const index of path.reverse()) twin = twin?.childNodes[index];
      return twin;
    });
  }

  /**
   * Drop link and image URLs that are data:, blob: or javascript:, or longer than MAX_LINK_CHARS
   * (a data: image can be megabytes); the link's text stays, such an image goes.
   * @param {ParentNode} root
   */
  function stripHeavyUrls(root) {
    for (const img of root.querySelectorAll("img")) {
      img.removeAttribute("srcset");
      if (heavy(img.getAttribute("src"))) img.removeAttribute("src");
    }
    for (const link of root.querySelectorAll("a[href]")) {
      if (heavy(link.getAttribute("href"))) link.removeAttribute("href");
    }
  }

  /** @param {string | null} url */
  function heavy(url) {
    return url !== null && (url.length > MAX_LINK_CHARS || /^\s*(data|blob|javascript):/i.test(url));
  }

  /**
   * turndown-plugin-gfm 1.0.2 writes a GFM table only when the first row is a heading row, and keeps
   * any other table as raw HTML; GFM has no table without a heading row, so give one an empty one.
   * A table with no rows at all is removed (the plugin reads `rows[0].parentNode` and would throw);
   * one with a row wider than MAX_ROW_CELLS becomes a paragraph per row (its cells joined by " | ").
   * @param {Element} root
   */
  function giveTablesAHeadingRow(root) {
    for (const table of /** @type {NodeListOf<HTMLTableElement>} */ (root.querySelectorAll("table"))) {
      const first = table.rows[0];
      if (!first) {
        table.remove();
        continue;
      }
      if ([...table.rows].some((each) => each.cells.length > MAX_ROW_CELLS)) {
        const rows = table.ownerDocument.createElement("div");
        for (const each of table.rows) {
          const line = rows.appendChild(table.ownerDocument.createElement("p"));
          line.textContent = [...each.cells].map((cell) => (cell.textContent ?? "").trim()).join(" | ");
        }
        table.replaceWith(rows);
        continue;
      }
      const inHead = first.parentElement?.nodeName === "THEAD";
      if (inHead || [...first.cells].every((cell) => cell.nodeName === "TH")) continue;
      let columns = 1;
      for (const each of table.rows) columns = Math.max(columns, each.cells.length);
      const head = table.ownerDocument.createElement("thead");
      const row = head.appendChild(table.ownerDocument.createElement("tr"));
      for (let i = 0; i < columns; i++) row.appendChild(table.ownerDocument.createElement("th"));
      table.tHead?.remove();
      table.insertBefore(head, table.firstChild);
    }
  }

  /** @type {any} */
  let service = null;

  /** The turndown converter: ATX headings, fenced code, "-" bullets, inline links, GFM tables. */
  function converter() {
    if (service) return service;
    const TurndownService = /** @type {any} */ (globalThis).TurndownService;
    const gfm = /** @type {any} */ (globalThis).turndownPluginGfm;
    service = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
    service.use(gfm.gfm);
    // `<`, `>`, `&` of the page's text become entities after turndown's Markdown escapes: a
    // renderer shows them, never runs them as HTML. turndown calls `escape` on text outside code
    // only, so code keeps its literal text.
    const markdownEscape = service.escape.bind(service);
    service.escape = (/** @type {string} */ text) => textClean().escapeHtmlText(markdownEscape(text));
    service.remove(["script", "style", "noscript", "template", "iframe", "object", "embed", "canvas"]);
    // A table cell is one line of a GFM row: the plugin leaves a cell's line breaks and pipes as
    // they are, which ends the row early or adds columns. Later rules win (turndown unshifts them).
    service.addRule("webctxTableCell", {
      filter: ["th", "td"],
      /** @param {string} content @param {Element} node */
      replacement: (content, node) => {
        const text = content.replace(/\s*\n+\s*/g, " ").replace(/\|/g, "\\|").trim();
        return (node.previousElementSibling ? " " : "| ") + text + " |";
      },
    });
    return service;
  }

  /**
   * The page's visible text, the fallback. Within the element cap: the text of a clone without
   * what the page's styles hide (`cloneText`). Over the cap: `innerText` (rendered text only: what
   * `display: none`, `visibility: hidden`, `hidden` and a closed `<details>` hide is not in it; the
   * cap bounds the walk that finds the rest). Never a field value: the clone's fields are removed,
   * `innerText` has none. `<`, `>`, `&` as entities, as in the Markdown of an article.
   * @returns {string}
   */
  function visibleText() {
    // An XML document (an SVG, a feed) may have no body and a root that is no HTMLElement.
    const root = /** @type {Element | null} */ (document.body ?? document.documentElement);
    if (!root) return "";
    let text = "";
    if (document.body && document.getElementsByTagName("*").length <= MAX_ELEMS_TO_PARSE) {
      const clone = visibleClone();
      stripFields(clone);
      text = cloneText(/** @type {HTMLElement} */ (clone.body));
    } else {
      text = root instanceof HTMLElement ? root.innerText : (root.textContent ?? "");
      // innerText has the contenteditables' text: cut out each secret one's (every occurrence).
      for (const host of secretEditors()) {
        const secretText = host.innerText.trim();
        if (secretText) text = text.split(secretText).join("");
      }
    }
    return textClean().escapeHtmlText(text.trim());
  }

  /** Elements whose text is no text of the page. */
  const NOT_TEXT = new Set(["script", "style", "noscript", "template", "iframe", "object", "embed", "canvas"]);
  /** Elements that start a line (the clone has no layout to say so), and those that leave a blank one. */
  const LINE = /^(address|article|aside|blockquote|dd|details|dialog|div|dl|dt|fieldset|figcaption|figure|footer|form|h[1-6]|header|hr|li|main|nav|ol|p|pre|section|summary|table|tr|ul)$/;
  const PARAGRAPH = /^(p|h[1-6]|blockquote|pre|table|ul|ol)$/;

  /**
   * The text of a clone's element, lines as its block elements make them: the visible-text
   * fallback without layout. Iterative (a 5,000-deep DOM is fine), linear in the nodes.
   * @param {Element} root
   * @returns {string}
   */
  function cloneText(root) {
    /** @type {string[]} */
    const out = [];
    /** @type {Array<Node | string>} */
    const stack = [root];
    while (stack.length > 0) {
      const node = /** @type {Node | string} */ (stack.pop());
      if (typeof node === "string") {
        out.push(node);
        continue;
      }
      if (node.nodeType === Node.TEXT_NODE) {
        out.push((node.nodeValue ?? "").replace(/\s+/g, " "));
        continue;
      }
      if (node.nodeType !== Node.ELEMENT_NODE) continue;
      const name = /** @type {Element} */ (node).localName;
      if (NOT_TEXT.has(name)) continue;
      if (name === "br") {
        out.push("\n");
        continue;
      }
      const end = PARAGRAPH.test(name) ? "\n\n" : LINE.test(name) ? "\n" : name === "td" || name === "th" ? " " : "";
      if (end) out.push(end);
      stack.push(end);
      for (let child = node.lastChild; child; child = child.previousSibling) stack.push(child);
    }
    return out.join("").replace(/[ \t]*\n[ \t]*/g, "\n").replace(/\n{3,}/g, "\n\n").replace(/ {2,}/g, " ");
  }

  /** @param {string} text */
  function oneLine(text) {
    return (text ?? "").replace(/\s+/g, " ").trim();
  }

  /** @type {any} */ (globalThis).webctxPageText = webctxPageText;
})();
