// node --test: how the confirmation prompt shows a call's arguments (service_worker/prompt_arguments.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  MAX_ARGUMENT_DEPTH,
  MAX_ARGUMENT_ROWS,
  MAX_VALUE_CHARS,
  argumentsText,
  argumentsView,
  revealText,
} from "../service_worker/prompt_arguments.js";

test("padding cannot push the recipient and the amount out: every key is shown", () => {
  const view = argumentsView({ memo: `Thanks${" ".repeat(2100)}`, to: "ATTACKER-IBAN", amount: 9999 });
  assert.equal(view.complete, true);
  assert.deepEqual(view.rows, [
    { depth: 0, key: "memo", value: '"Thanks[2,100 spaces]"' },
    { depth: 0, key: "to", value: '"ATTACKER-IBAN"' },
    { depth: 0, key: "amount", value: "9999" },
  ]);
});

test("each value is cut on its own, and the cut is said", () => {
  const view = argumentsView({ memo: "x".repeat(2440), to: "X" });
  assert.equal(view.rows[0].value.length, MAX_VALUE_CHARS + 1);
  assert.ok(view.rows[0].value.endsWith("…"));
  assert.equal(view.rows[0].note, "… (2,142 more characters)"); // 2,440 + 2 quotes − 300
  assert.deepEqual(view.rows[1], { depth: 0, key: "to", value: '"X"' });
});

test("whitespace runs and invisible characters are counted, not shown raw", () => {
  assert.equal(revealText("a b"), "a b");
  assert.equal(revealText("a  b"), "a[2 spaces]b");
  assert.equal(revealText("a\nb"), "a[line break]b");
  assert.equal(revealText("a\n\u2028b"), "a[2 line breaks]b");
  assert.equal(revealText("a \t b"), "a[3 blank characters]b");
  assert.equal(revealText("IB\u200bAN\u202e"), "IB[1 invisible character]AN[1 invisible character]");
  assert.equal(revealText("x\u{e0041}\u{e0042}"), "x[2 invisible characters]");
});

test("nested objects and arrays are indented keys", () => {
  const view = argumentsView({ order: { items: ["tea", { n: 2 }], empty: {} }, none: [] });
  assert.equal(view.complete, true);
  assert.equal(
    argumentsText(view),
    ['order: ', '  items: ', '    [0]: "tea"', '    [1]: ', '      n: 2', '  empty: {}', "none: []"].join("\n"),
  );
});

test("too many keys or too deep: not complete, no rows, and a reason that ends with what to do", () => {
  const many = argumentsView(Object.fromEntries(Array.from({ length: MAX_ARGUMENT_ROWS + 1 }, (_, i) => [`k${i}`, i])));
  assert.equal(many.complete, false);
  assert.deepEqual(many.rows, []);
  assert.match(many.problem ?? "", /more than 40 keys.*does not offer Allow\. Deny it/);
  const exactly = argumentsView(Object.fromEntries(Array.from({ length: MAX_ARGUMENT_ROWS }, (_, i) => [`k${i}`, i])));
  assert.equal(exactly.complete, true);

  let deep = { leaf: 1 };
  for (let i = 0; i < MAX_ARGUMENT_DEPTH; i++) deep = { deeper: deep };
  assert.equal(argumentsView(deep).complete, true);
  const tooDeep = argumentsView({ deeper: deep });
  assert.equal(tooDeep.complete, false);
  assert.match(tooDeep.problem ?? "", /nested more than 5 levels/);
  const circular = {};
  circular.self = circular;
  assert.equal(argumentsView(circular).complete, false);
});

test("long keys are cut and said; no arguments is said", () => {
  const view = argumentsView({ ["k".repeat(100)]: 1 });
  assert.equal(view.rows[0].key.length, 81);
  assert.equal(view.rows[0].note, "key … (20 more characters)");
  assert.equal(argumentsText(argumentsView({})), "(no arguments)");
  assert.equal(argumentsText(argumentsView(null)), "(no arguments)");
});

test("lookalike keys show their code points: a Cyrillic а or a Hangul filler is not a second amount", () => {
  const view = argumentsView({ amount: 1, "\u0430mount": 2, "amount\u3164": 3, "a  b": 4 });
  assert.equal(view.complete, true);
  assert.deepEqual(
    view.rows.map((r) => r.key),
    ["amount", "\u0430mount (\\u{430}mount)", "amount[1 invisible character] (amount\\u{3164})", "a[2 spaces]b (a\\u{20}\\u{20}b)"],
  );
  assert.equal(new Set(view.rows.map((r) => r.key)).size, 4);
});

test("characters that draw nothing are counted as invisible, in values and keys", () => {
  for (const blank of ["\u2800", "\u3164", "\u115f", "\u1160", "\uffa0", "\u180e", "\u034f", "\u17b4", "\u17b5"]) {
    assert.equal(revealText(`a${blank}b`), "a[1 invisible character]b", blank.codePointAt(0)?.toString(16));
  }
  const view = argumentsView({ memo: `x${"\u2800".repeat(300)}y` });
  assert.deepEqual(view.rows, [{ depth: 0, key: "memo", value: '"x[300 invisible characters]y"' }]);
});

test("two keys of one object that would still be shown alike offer no Allow", () => {
  const view = argumentsView({ "a  b": 1, "a[2 spaces]b (a\\u{20}\\u{20}b)": 2 });
  assert.equal(view.complete, false);
  assert.match(view.problem ?? "", /look the same.*Deny it/);
  const cut = argumentsView({ [`${"k".repeat(90)}1`]: 1, [`${"k".repeat(90)}2`]: 2 });
  assert.equal(cut.complete, false);
  // Alike keys in different objects are shown under different parents: allowed.
  assert.equal(argumentsView({ x: { a: 1 }, y: { a: 2 } }).complete, true);
});

test("a value whose words mix Latin with Cyrillic or Greek letters says so, escaped", () => {
  const view = argumentsView({ to: "p\u0430ypal.com", city: "Москва", cafe: "café", o: "G\u03bfogle" });
  assert.deepEqual(view.rows.map((r) => r.note), ["mixed scripts: p\\u{430}ypal", undefined, undefined, "mixed scripts: G\\u{3bf}ogle"]);
});
