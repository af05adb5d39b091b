// node --test: the pure helpers beside the native port and the selection store.
import assert from "node:assert/strict";
import test from "node:test";

import { pickBrowser } from "../service_worker/browser_identity.js";
import { UPDATE_EXTENSION_FIX, UPDATE_HOST_FIX, fixFor, versionMismatch } from "../service_worker/native_port.js";
import { parseSelection } from "../service_worker/selections.js";

const UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36";

test("the browser is named by its most specific brand, with the full version", () => {
  const brands = [
    { brand: "Not)A;Brand", version: "8.0.0.0" },
    { brand: "Chromium", version: "156.0.8078.114" },
    { brand: "Google Chrome", version: "156.0.8078.114" },
  ];
  assert.deepEqual(pickBrowser(brands, "ua"), { name: "Google Chrome", version: "156.0.8078.114", userAgent: "ua" });
  assert.equal(pickBrowser([...brands, { brand: "Microsoft Edge", version: "156.0.1.2" }], "ua").name, "Microsoft Edge");
  assert.equal(pickBrowser([{ brand: "Chromium", version: "156.0.8078.114" }], UA).name, "Chromium");
});

test("Firefox, which has no UA Client Hints, is named from its UA string", () => {
  const ua = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
  assert.deepEqual(pickBrowser([], ua), { name: "Firefox", version: "128.0", userAgent: ua });
  assert.equal(fixFor("Specified native messaging host not found.", "Firefox"), "webctx install --browser firefox");
});

test("headless Chromium is Chromium", () => {
  assert.deepEqual(pickBrowser([{ brand: "HeadlessChrome", version: "156.0.8078.114" }], UA), {
    name: "Chromium",
    version: "156.0.8078.114",
    userAgent: UA,
  });
  assert.deepEqual(pickBrowser([], UA), { name: "Chromium", version: "156.0.0.0", userAgent: UA });
});

test("a dropped port gets the command that fixes it", () => {
  assert.equal(fixFor("Specified native messaging host not found.", "Chromium"), "webctx install --browser chromium");
  assert.equal(fixFor("Access to the specified native messaging host is forbidden.", "Google Chrome"), "webctx install --browser chrome");
  assert.equal(fixFor("Native host has exited.", "Chromium"), "webctx doctor");
  assert.equal(fixFor("Something new.", "Chromium"), "webctx doctor");
});

test("content-script selections are checked for shape and size", () => {
  assert.equal(parseSelection(null), null);
  assert.equal(parseSelection({ key: "1", text: "x" }), null);
  assert.equal(parseSelection({ key: 1, text: "" }), null);
  assert.equal(parseSelection({ key: 1, text: "x".repeat(65_537) }), null);
  assert.deepEqual(parseSelection({ key: 2, text: "hi", before: 5, after: "a".repeat(5000), length: 1 }), {
    key: 2,
    text: "hi",
    before: "",
    after: "a".repeat(1024),
    length: 2,
  });
  assert.equal(parseSelection({ key: 3, text: "hi", length: 1_000_000 })?.length, 1_000_000);
  assert.equal(parseSelection({ key: 4, text: "hi", hidden: true })?.hidden, true);
  assert.equal("hidden" in (parseSelection({ key: 4, text: "hi", hidden: "yes" }) ?? {}), false);
  assert.equal(parseSelection({ key: 5, text: "hi", editor: "monaco", partial: true })?.editor, "monaco");
  assert.equal(parseSelection({ key: 5, text: "hi", partial: true })?.partial, true);
  assert.equal("editor" in (parseSelection({ key: 5, text: "hi", editor: "Monaco!" }) ?? {}), false);
  assert.equal("partial" in (parseSelection({ key: 5, text: "hi", partial: 1 }) ?? {}), false);
});

test("a version mismatch with the native host names both sides and the older one to update", () => {
  const ours = { version: "0.1.0", protocol: "0.2.0" };
  assert.equal(versionMismatch(ours, { version: "0.1.0", protocol: "0.2.0" }), undefined);
  assert.equal(versionMismatch(ours, { version: "0.1.0", protocol: "0.2.9" }), undefined); // a patch
  assert.equal(versionMismatch(ours, { protocol: "0.2.0" }), undefined); // a host too old to say its version
  const newerHost = versionMismatch(ours, { version: "0.2.0", protocol: "0.3.0" });
  assert.equal(newerHost?.update, "extension");
  assert.equal(
    newerHost?.message,
    `The extension is webctx 0.1.0 (protocol 0.2.0) but the native host is webctx 0.2.0 (protocol 0.3.0): ${UPDATE_EXTENSION_FIX}.`,
  );
  const olderHost = versionMismatch({ version: "0.10.0", protocol: "0.2.0" }, { version: "0.9.0", protocol: "0.2.0" });
  assert.equal(olderHost?.update, "native host"); // numbers, not text, are compared
  assert.ok(olderHost?.message.endsWith(`${UPDATE_HOST_FIX}.`));
  const oldHost = versionMismatch(ours, { protocol: "0.1.0" });
  assert.deepEqual(oldHost?.host, { protocol: "0.1.0" });
  assert.equal(oldHost?.update, "native host");
  assert.ok(oldHost?.message.includes("webctx ? (protocol 0.1.0)"));
});
