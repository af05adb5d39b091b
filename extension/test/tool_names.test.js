// node --test: exposed names of page tools (design.md §5 "Exposure").
import assert from "node:assert/strict";
import test from "node:test";

import { EXPOSED_NAME_PATTERN, MAX_EXPOSED_NAME_CHARS, ToolNameRegistry, cleanName, shortHash } from "../service_worker/tool_names.js";

test("a plain name becomes p<n>_<name>", () => {
  const names = new ToolNameRegistry();
  assert.equal(names.nameFor(3, "add"), "p3_add");
  assert.equal(cleanName(12, "cart.add-item"), "p12_cart_add_item");
});

test("names that collide after cleaning are all distinct, valid, and the clean one keeps the plain name", () => {
  const names = new ToolNameRegistry();
  const exposed = names.namesFor(1, ["cart.add-item", "cart-add-item", "cart_add_item"]);
  assert.equal(new Set(exposed).size, 3);
  for (const name of exposed) assert.match(name, EXPOSED_NAME_PATTERN);
  assert.equal(exposed[2], "p1_cart_add_item");
  assert.match(exposed[0], /^p1_cart_add_item_[0-9a-z]{6}$/);
});

test("a 128-character name is cut to 48 characters with a stable hash suffix", () => {
  const long = `${"t".repeat(120)}.long-12`;
  const a = new ToolNameRegistry().nameFor(7, long);
  const b = new ToolNameRegistry().nameFor(7, long);
  assert.equal(a, b);
  assert.equal(a.length, MAX_EXPOSED_NAME_CHARS);
  assert.match(a, EXPOSED_NAME_PATTERN);
  assert.ok(a.endsWith(`_${shortHash(long)}`));
  // Two long names sharing a 48-character prefix still differ.
  assert.notEqual(new ToolNameRegistry().nameFor(7, `${"t".repeat(120)}.other`), a);
});

test("names are stable for the instance: a tool that goes and comes back keeps its name", () => {
  const names = new ToolNameRegistry();
  const first = names.namesFor(2, ["x.y", "x_y"]);
  const again = names.namesFor(2, ["x_y"]);
  assert.equal(again[0], first[1]);
  assert.deepEqual(names.namesFor(2, ["x.y", "x_y"]), first);
  // In another order too.
  assert.deepEqual(names.namesFor(2, ["x_y", "x.y"]), [first[1], first[0]]);
  names.reset();
  assert.equal(names.nameFor(2, "x.y"), "p2_x_y");
});

test("the same tool name on two pages gives two names", () => {
  const names = new ToolNameRegistry();
  assert.notEqual(names.nameFor(1, "search"), names.nameFor(2, "search"));
});

test("shortHash is 6 base-36 digits and deterministic", () => {
  assert.match(shortHash(""), /^[0-9a-z]{6}$/);
  assert.equal(shortHash("cart.add-item"), shortHash("cart.add-item"));
  assert.notEqual(shortHash("cart.add-item"), shortHash("cart-add-item"));
});
