// node --test: the rules the native host implements too, against the one file of cases both sides
// read (extension/test/wire_cases.json; the Python side: tests/unit/protocol/test_wire_cases.py).
// Also: the classic-script copy of the generated constants (content/wire.js) has exactly the values
// of the ES module (wire.js).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";
import vm from "node:vm";

import "../content/utf8_cap.js";
import { versionMismatch } from "../service_worker/native_port.js";
import { pageUri } from "../service_worker/tree.js";
import * as wire from "../wire.js";

const cases = JSON.parse(readFileSync(new URL("./wire_cases.json", import.meta.url), "utf8"));
/** @type {{capUtf8: (text: string, maxBytes: number) => string, utf8Length: (text: string) => number, jsonTextOver: (text: string, maxBytes: number) => boolean}} */
const utf8 = /** @type {any} */ (globalThis).webctxUtf8;

test("version negotiation: the same verdict and words as protocol/version.py version_mismatch", () => {
  for (const c of cases.versions.filter((/** @type {{only?: string}} */ c) => c.only !== "python")) {
    const found = versionMismatch(c.extension, c.host);
    if (c.mismatch === null) assert.equal(found, undefined, c.why);
    else {
      assert.equal(found?.update, c.mismatch.update, c.why);
      assert.equal(found?.message, c.mismatch.message, c.why);
    }
  }
});

test("the UTF-8 cut and measure (content/utf8_cap.js): the cases the host's json_text rule gives", () => {
  for (const c of cases.utf8) {
    const label = JSON.stringify(c.text);
    assert.equal(utf8.utf8Length(c.text), c.bytes, label);
    if (c.cut !== undefined) assert.equal(utf8.capUtf8(c.text, c.maxBytes), c.cut, label);
    if (c.jsonBytes !== undefined) {
      assert.equal(utf8.jsonTextOver(c.text, c.jsonBytes), false, label);
      assert.equal(utf8.jsonTextOver(c.text, c.jsonBytes - 1), true, label);
    }
  }
});

test("element ids and tool names: the generated patterns match what Python's fullmatch does", () => {
  for (const c of cases.patterns) {
    const label = JSON.stringify(c.text);
    assert.equal(wire.ID_PATTERN.test(c.text), c.id, `id ${label}`);
    assert.equal(wire.WEBMCP_TOOL_NAME_PATTERN.test(c.text), c.webmcpName, `WebMCP name ${label}`);
    assert.equal(wire.PAGE_TOOL_NAME_PATTERN.test(c.text), c.exposedName, `exposed name ${label}`);
  }
});

test("page-resource URIs: formatted by tree.js pageUri, parsed by the generated pattern", () => {
  for (const c of cases.pageUris) {
    const match = wire.PAGE_URI_PATTERN.exec(c.uri);
    if (c.parts === null) {
      assert.equal(match, null, JSON.stringify(c.uri));
      continue;
    }
    assert.deepEqual({ ...match?.groups }, { instance: c.parts.instance, page_id: c.parts.pageId, kind: c.parts.kind }, c.uri);
    assert.equal(pageUri(c.parts.instance, c.parts.pageId, c.parts.kind), c.uri);
    assert.ok(c.uri.startsWith(wire.RESOURCE_URI_PREFIX));
  }
});

test("content/wire.js (classic script) sets the same values as wire.js (ES module)", () => {
  /** @type {{webctxWire?: Record<string, unknown>}} */
  const sandbox = {};
  vm.runInNewContext(readFileSync(new URL("../content/wire.js", import.meta.url), "utf8"), sandbox);
  const classic = /** @type {Record<string, unknown>} */ (sandbox.webctxWire);
  /** Values of another realm, comparable here (RegExps by their source and flags). @param {unknown} v */
  const plain = (v) => JSON.parse(JSON.stringify(v, (_, x) => (x && typeof x === "object" && typeof x.source === "string" && typeof x.flags === "string" ? `/${x.source}/${x.flags}` : x)));
  assert.deepEqual(Object.keys(classic).sort(), Object.keys(wire).sort());
  for (const [name, value] of Object.entries(wire)) assert.deepEqual(plain(classic[name]), plain(value), name);
  assert.ok(Object.isFrozen(classic));
});
