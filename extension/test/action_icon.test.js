// The toolbar icon per state and every state in words (action_icon.js, settings.js describeStatus;
// the popup's status).
import { test } from "node:test";
import assert from "node:assert/strict";
import { actionLook } from "../service_worker/action_icon.js";
import { describeStatus } from "../service_worker/settings.js";

const look = (/** @type {any} */ status, enabled = true) => actionLook(describeStatus(status, enabled));

test("each state has its own icon, badge and words", () => {
  const on = look({ state: "connected", port: 1, at: 0 });
  assert.deepEqual(on.path, { 16: "/popup/icons/icon-16.png", 32: "/popup/icons/icon-32.png" });
  assert.equal(on.badge, "");
  assert.equal(on.title, "webctx: Provider on: connected");

  const off = look({ state: "connected", at: 0 }, false);
  assert.equal(off.path["16"], "/popup/icons/icon-off-16.png");
  assert.equal(off.title, "webctx: Provider off");

  const broken = look({ state: "disconnected", error: "Specified native messaging host not found.", fix: "webctx install --browser chromium", at: 0 });
  assert.equal(broken.path["32"], "/popup/icons/icon-broken-32.png");
  assert.equal(broken.badge, "!");
  assert.equal(broken.title, "webctx: Provider on: native host not installed");

  assert.equal(look({ state: "connecting", at: 0 }).badge, "");
  assert.equal(look({ state: "connecting", at: 0 }).path["16"], "/popup/icons/icon-16.png");
});

test("version mismatch is broken, in words, with its fix", () => {
  const view = describeStatus({ state: "mismatch", words: "The native host is 0.2.0, this extension 0.1.0.", fix: "webctx install --browser chromium", at: 0 }, true);
  assert.equal(view.label, "Provider on: version mismatch");
  assert.equal(view.detail, "The native host is 0.2.0, this extension 0.1.0.");
  assert.equal(view.fix, "webctx install --browser chromium");
  assert.equal(actionLook(view).badge, "!");
});

test("a state the popup does not know is shown by the worker's words", () => {
  const view = describeStatus({ state: "upgrading", words: "upgrading the native host", at: 0 }, true);
  assert.equal(view.label, "Provider on: upgrading the native host");
  assert.equal(view.tone, "busy");
  const broken = describeStatus({ state: "weird", words: "the host is too old", fix: "webctx update", at: 0 }, true);
  assert.equal(broken.tone, "broken");
  assert.equal(broken.fix, "webctx update");
});
