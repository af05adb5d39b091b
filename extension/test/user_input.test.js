// node --test: whose a selection is, the user's or the page's (content/user_input.js `tracker`).
// The content script is a classic script; its pure state machine is lifted out of the source text.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";

const source = readFileSync(new URL("../content/user_input.js", import.meta.url), "utf8");
const body = /\n  function tracker\([^)]*\) \{\n[\s\S]*?\n  \}\n/.exec(source);
assert.ok(body, "tracker not found in user_input.js");
/** @type {(windowMs: number) => any} */
const tracker = new Function("MENU_MS", `${body[0]}; return tracker;`)(10000);

const WINDOW = 1000;
const hidden = [{}, 0, {}, 1, 57];
const para = [{}, 0, {}, 3, -1];

test("a selection made with no input at all is the page's", () => {
  const t = tracker(WINDOW);
  assert.equal(t.changed(hidden, 5000), false);
  assert.equal(t.isUsers(hidden, 9000), false);
});

test("a change within the window after a key or a release is the user's; seconds later it is not", () => {
  const t = tracker(WINDOW);
  t.input("key", 1000);
  assert.equal(t.changed(para, 1010), true, "Ctrl+A, Shift+arrows: the change follows the keydown");
  assert.equal(t.changed(hidden, 1900), true, "a page's adjustment right after the gesture counts");
  assert.equal(t.changed(para, 3100), false, "2 s after the last input: the page's");
  assert.equal(t.isUsers(para, 9000), false, "and it stays the page's");
});

test("a change while a button is held is the user's however long the drag, until the release", () => {
  const t = tracker(WINDOW);
  t.input("press", 0);
  assert.equal(t.changed(para, 30000), true, "a slow drag");
  t.input("release", 30010);
  t.input("idle", 30020);
  assert.equal(t.changed(hidden, 32000), false);
});

test("a move with no button or a lost focus ends a press whose release never came", () => {
  const t = tracker(WINDOW);
  t.input("press", 0);
  t.input("idle", 10);
  assert.equal(t.changed(hidden, 5000), false);
  t.input("press", 6000);
  t.input("key", 6010);
  assert.equal(t.changed(para, 60000), true, "a key during a drag does not end it");
});

test("an event that did not move the selection keeps its verdict: no input makes the page's selection the user's", () => {
  const t = tracker(WINDOW);
  assert.equal(t.changed(hidden, 100), false);
  t.input("release", 5000); // the user clicks a button; the selection stays where the page put it
  assert.equal(t.changed([...hidden], 5010), false);
  assert.equal(t.isUsers([...hidden], 5020), false);
  assert.equal(t.isNew([...hidden]), false);
});

test("a change whose event has not come yet is judged by the input now", () => {
  const t = tracker(WINDOW);
  t.input("key", 1000);
  t.changed(para, 1010);
  assert.equal(t.isNew(hidden), true);
  assert.equal(t.isUsers(hidden, 1500), true, "right after an input");
  assert.equal(t.isUsers(hidden, 4000), false, "long after it");
  assert.equal(t.isUsers(para, 4000), true, "the last change's verdict stands");
});

test("Select all from the context menu counts until the next press or key, at most 10 s", () => {
  const t = tracker(WINDOW);
  t.input("press", 0);
  t.input("menu", 5); // Linux: the menu opens on the press
  t.input("release", 10);
  t.input("idle", 20);
  assert.equal(t.changed(para, 4000), true, "the menu's Select all, 4 s later");
  t.input("press", 5000);
  t.input("release", 5010);
  assert.equal(t.changed(hidden, 7000), false, "after the next click, the page's again");
  t.input("menu", 8000);
  assert.equal(t.changed(para, 19000), false, "more than 10 s after the menu opened");
  t.input("menu", 20000);
  t.input("key", 20100);
  assert.equal(t.changed(hidden, 22000), false, "a key ends it");
});

test("a selection adopted at injection is the user's until it moves with no input", () => {
  const t = tracker(WINDOW);
  t.adopt(para);
  assert.equal(t.isUsers([...para], 60000), true);
  assert.equal(t.changed(hidden, 60010), false, "adopting grants no input window");
});
