// node --test: the pure rules of the WebMCP polyfill (main_world/polyfill.js), a classic script.
// Run where there is no `document`, the script hands its pure rules to `webctxPolyfillRules` on
// its global and stops before touching anything of a page (see the top of polyfill.js).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";
import vm from "node:vm";

const source = readFileSync(new URL("../main_world/polyfill.js", import.meta.url), "utf8");
/** @type {{webctxPolyfillRules?: any, URL: typeof URL}} */
const sandbox = { URL };
vm.runInNewContext(source, sandbox, { filename: "polyfill.js" });
const { trustworthyOrigin, allowPermits, annotationsOf, frameEntries } = sandbox.webctxPolyfillRules;
/** Objects made in the script's realm, as plain objects of this one (deepStrictEqual compares prototypes). @param {unknown} value */
const plain = (value) => JSON.parse(JSON.stringify(value) ?? "null");

/**
 * A stand-in for an <iframe> element: its attributes and its document's base URL.
 * @param {Record<string, string>} attributes
 * @param {string} [baseURI]
 */
function iframe(attributes, baseURI = "https://top.example/page") {
  return {
    getAttribute: (/** @type {string} */ name) => attributes[name] ?? null,
    hasAttribute: (/** @type {string} */ name) => name in attributes,
    ownerDocument: { baseURI },
  };
}

test("exposedTo/fromOrigins: only potentially trustworthy origins, serialised (webmcp.md §1.3)", () => {
  assert.equal(trustworthyOrigin("https://a.example/path?q"), "https://a.example");
  assert.equal(trustworthyOrigin("wss://a.example:8443"), "wss://a.example:8443");
  for (const loopback of ["http://localhost:8000", "http://app.localhost", "http://127.0.0.1:9", "http://[::1]"]) {
    assert.equal(trustworthyOrigin(loopback), new URL(loopback).origin, loopback);
  }
  for (const refused of ["http://a.example", "data:text/html,x", "not a url", "http://128.0.0.1", "file:///etc/passwd"]) {
    assert.equal(trustworthyOrigin(refused), null, refused);
  }
});

test("allow: no tools directive means same origin only; tools alone means the src's origin", () => {
  const top = "https://top.example";
  assert.equal(allowPermits(iframe({}), top, top), true);
  assert.equal(allowPermits(iframe({}), "https://other.example", top), false);
  assert.equal(allowPermits(iframe({ allow: "tools", src: "https://other.example/f" }), "https://other.example", top), true);
  assert.equal(allowPermits(iframe({ allow: "tools", src: "https://other.example/f" }), "https://third.example", top), false);
  // A relative src resolves against the owner document; srcdoc is the owner's origin.
  assert.equal(allowPermits(iframe({ allow: "tools", src: "/frame" }), top, top), true);
  assert.equal(allowPermits(iframe({ allow: "tools", src: "https://other.example/", srcdoc: "" }), top, top), true);
});

test("allow: *, 'self', 'src' and origins in the tools directive; other features are ignored", () => {
  const top = "https://top.example";
  const other = "https://other.example";
  assert.equal(allowPermits(iframe({ allow: "camera; tools *" }), other, top), true);
  assert.equal(allowPermits(iframe({ allow: "tools 'self'" }), other, top), false);
  assert.equal(allowPermits(iframe({ allow: "tools 'self'" }), top, top), true);
  assert.equal(allowPermits(iframe({ allow: "tools https://other.example" }), other, top), true);
  assert.equal(allowPermits(iframe({ allow: "tools https://third.example" }), other, top), false);
  assert.equal(allowPermits(iframe({ allow: "camera *" }), other, top), false);
});

test("annotations keep the four known hints as booleans", () => {
  assert.equal(annotationsOf(undefined), undefined);
  assert.equal(annotationsOf("readOnly"), undefined);
  assert.deepEqual(plain(annotationsOf({ readOnlyHint: 1, consequentialHint: true, other: true })), {
    readOnlyHint: true,
    untrustedContentHint: false,
    consequentialHint: true,
    debugging: false,
  });
});

test("a cross-origin frame's posted tools are page input: checked for shape, first of a name kept", () => {
  const posted = [
    { name: "search", description: "Search", title: "Find", inputSchema: '{"type":"object"}', annotations: { readOnlyHint: true } },
    { name: "search", description: "again" },
    { name: "bad name", description: "x" },
    { name: "empty", description: "" },
    null,
    { name: "plain", description: "Plain", title: 5, inputSchema: { type: "object" } },
  ];
  const entries = frameEntries(posted);
  assert.deepEqual(
    plain(entries.map((/** @type {any} */ e) => [e.name, e.title, e.description, e.schemaText ?? null, e.annotations?.readOnlyHint ?? null])),
    [
      ["search", "Find", "Search", '{"type":"object"}', true],
      ["plain", "", "Plain", null, null],
    ],
  );
  assert.equal(entries[0].execute(), undefined); // runs in its frame, never here
  const many = Array.from({ length: 200 }, (_, i) => ({ name: `t${i}`, description: "d" }));
  assert.equal(frameEntries(many).length, 128);
});

test("a thrown non-Error answers with one sentence in both WebMCP modes (polyfill, native_errors)", () => {
  const sentence = (text) => /const NOT_AN_ERROR = ("[^"\n]+");/.exec(text)?.[1];
  const errors = readFileSync(new URL("../main_world/native_errors.js", import.meta.url), "utf8");
  assert.ok(sentence(source)?.includes("is not an Error"));
  assert.equal(sentence(errors), sentence(source));
});
