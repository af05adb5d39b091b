// node --test: "Who read it" and "Shared now": the worker's feed (service_worker/activity.js),
// the badge flash, and the popup's pure wording (popup/activity.js, popup/shared_now.js).
import assert from "node:assert/strict";
import test from "node:test";

import { ActivityFeed, MAX_ACTIVITY, READ_BADGE_MS, parseEntry, readBadgeFlasher } from "../service_worker/activity.js";
import { ago, describeRead } from "../popup/activity.js";
import { firstWords, neverSharedText, sharedRows, siteOf } from "../popup/shared_now.js";

const ENTRY = {
  at: 1_000_000,
  client: { name: "Claude Code", version: "2.1.0" },
  tool: "current",
  ok: true,
  elements: [
    { kind: "page", id: "tab-1", page: "tab-1", title: "Tidal locking - Wikipedia, the free encyclopedia" },
    { kind: "selection", id: "sel-1", page: "tab-1" },
  ],
};

test("the feed keeps the last 50 well-formed entries, newest first", () => {
  const feed = new ActivityFeed();
  let changes = 0;
  feed.onChange(() => changes++);
  for (let n = 0; n < MAX_ACTIVITY + 5; n++) assert.equal(feed.add({ ...ENTRY, at: n }), true);
  assert.equal(feed.add({ tool: "current" }), false);
  assert.equal(feed.add(null), false);
  const entries = feed.entries();
  assert.equal(entries.length, 50);
  assert.equal(entries[0].at, MAX_ACTIVITY + 4);
  assert.equal(changes, MAX_ACTIVITY + 5);
  feed.clear();
  assert.deepEqual(feed.entries(), []);
});

test("parseEntry keeps only the known fields", () => {
  const parsed = parseEntry({ ...ENTRY, extra: "x", elements: [{ kind: "page", id: "tab-1", content: "secret" }, 7] });
  assert.deepEqual(parsed?.elements, [{ kind: "page", id: "tab-1" }]);
  assert.equal(/** @type {any} */ (parsed).extra, undefined);
});

test("a read is told in words with the client's name", () => {
  assert.equal(
    describeRead(ENTRY, ENTRY.at + 125_000),
    "Claude Code 2.1.0 read the selection in 'Tidal locking - Wikipedia, the free enc…' 2 min ago",
  );
  const tool = { ...ENTRY, tool: "p1_search", ok: false, client: { name: "unknown client" }, elements: [ENTRY.elements[0]] };
  assert.match(describeRead(tool, ENTRY.at), /^unknown client called the page tool p1_search in 'Tidal.*' \(it failed\) just now$/);
  const bridged = { ...ENTRY, client: { name: "Claude Desktop", version: "1.2", via: "webctx mcp" } };
  assert.match(describeRead(bridged, ENTRY.at), /^Claude Desktop 1\.2 \(via webctx mcp\) read the selection in /);
  // A page resource read (provider/page_resources.py _record) is a read, not a page-tool call.
  const page = { kind: "page", id: "tab-2", page: "tab-2", title: "Tidal locking" };
  const text = { ...ENTRY, tool: "resources/read", elements: [page, { kind: "text", id: "tab-2", page: "tab-2" }] };
  assert.equal(describeRead(text, ENTRY.at), "Claude Code 2.1.0 read the text of 'Tidal locking' just now");
  const shot = { ...text, ok: false, elements: [page, { kind: "screenshot", id: "tab-2", page: "tab-2" }] };
  assert.equal(describeRead(shot, ENTRY.at), "Claude Code 2.1.0 read a screenshot of 'Tidal locking' (it failed) just now");
  assert.equal(ago(0, 9_999), "just now");
  assert.equal(ago(0, 3_600_000), "1 h ago");
});

test("the badge flashes for READ_BADGE_MS after the last read", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  /** @type {string[]} */
  const texts = [];
  const flash = readBadgeFlasher((text) => texts.push(text));
  flash();
  t.mock.timers.tick(READ_BADGE_MS - 1);
  flash(); // a second read extends it
  t.mock.timers.tick(READ_BADGE_MS - 1);
  assert.deepEqual(texts, ["read", "read"]);
  t.mock.timers.tick(1);
  assert.deepEqual(texts, ["read", "read", ""]);
});

test("shared now lists the window's page, selection and field kind, never the field's value", () => {
  const root = {
    id: "app", role: "Application",
    children: [
      { id: "win-2", role: "Window", children: [{ id: "tab-9", role: "Page", title: "Other", url: "https://other.example/" }] },
      {
        id: "win-1", role: "Window", focused: true,
        children: [
          { id: "tab-1", role: "Page", subrole: "tab", title: "Tidal", url: "https://en.wikipedia.org/wiki/Tide", attributes: { tools: ["p1_a", "p1_b"] },
            children: [
              { id: "sel-1", role: "Text", selected: true, content: [{ type: "text", text: "one two three four five six seven eight nine ten" }] },
              { id: "field-1", role: "Group", subrole: "textbox", focused: true, title: "Message", content: [{ type: "text", text: "SECRET VALUE" }] },
            ] },
          { id: "tab-2", role: "Page", subrole: "tab", title: "Hidden", visible: false },
        ],
      },
    ],
  };
  const rows = sharedRows(/** @type {any} */ (root), "win-1");
  assert.deepEqual(rows.map((r) => [r.what, r.id, r.kind]), [
    ["page", "tab-1", "Page/tab"],
    ["selection", "sel-1", "Text (selected)"],
    ["field", "field-1", "Group/textbox"],
    ["tools", "tab-1", "Page attributes.tools"],
    ["tabs", undefined, "Page"],
    ["windows", undefined, "Window"],
  ]);
  assert.equal(rows[0].text, "Tidal — en.wikipedia.org");
  assert.equal(rows[1].text, "“one two three four five six seven eight…”");
  assert.equal(rows[3].text, "2 tools hosts can call");
  assert.ok(!JSON.stringify(rows).includes("SECRET VALUE"));
  assert.equal(sharedRows(/** @type {any} */ (root), "win-x")[0].id, "tab-1"); // the focused window
  assert.deepEqual(sharedRows(null, null), []);
  assert.equal(siteOf("file:///tmp/a.html"), "file");
  assert.equal(firstWords("a b", 8), "a b");
  assert.match(neverSharedText({ excludedSites: 1, incognito: false }), /1 excluded site, incognito windows\.$/);
});
