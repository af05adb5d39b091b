// node --test: the vendored libraries (extension/vendor/, see its README.md) are the npm packages'
// files byte for byte, at the versions package.json pins: vendored code is never edited by hand.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";

const root = new URL("../../", import.meta.url);
/** vendored path (under extension/vendor/) → [npm package, file in the package] */
const VENDORED = {
  "readability/Readability.js": ["@mozilla/readability", "Readability.js"],
  "readability/LICENSE.md": ["@mozilla/readability", "LICENSE.md"],
  "turndown/turndown.js": ["turndown", "dist/turndown.js"],
  "turndown/LICENSE": ["turndown", "LICENSE"],
  "turndown-plugin-gfm/turndown-plugin-gfm.js": ["turndown-plugin-gfm", "dist/turndown-plugin-gfm.js"],
  "turndown-plugin-gfm/LICENSE": ["turndown-plugin-gfm", "LICENSE"],
  "pdfjs/pdf.min.mjs": ["pdfjs-dist", "build/pdf.min.mjs"],
  "pdfjs/pdf.worker.min.mjs": ["pdfjs-dist", "build/pdf.worker.min.mjs"],
  "pdfjs/LICENSE": ["pdfjs-dist", "LICENSE"],
};
const PINNED = { "@mozilla/readability": "0.6.0", turndown: "7.2.5", "turndown-plugin-gfm": "1.0.2", "pdfjs-dist": "6.5.438" };

test("package.json pins each vendored package exactly, and node_modules holds that version", () => {
  const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));
  for (const [name, version] of Object.entries(PINNED)) {
    assert.equal(pkg.devDependencies[name], version, `package.json devDependencies ${name}`);
    const installed = JSON.parse(readFileSync(new URL(`node_modules/${name}/package.json`, root), "utf8"));
    assert.equal(installed.version, version, `node_modules/${name} (run npm ci)`);
  }
});

test("every vendored file equals its node_modules copy, byte for byte", () => {
  for (const [vendored, [name, file]] of Object.entries(VENDORED)) {
    const ours = readFileSync(new URL(`extension/vendor/${vendored}`, root));
    const theirs = readFileSync(new URL(`node_modules/${name}/${file}`, root));
    assert.ok(ours.equals(theirs), `extension/vendor/${vendored} differs from node_modules/${name}/${file}: copy it again (extension/vendor/README.md)`);
  }
});

test("extension/vendor/ holds only the vendored files and its README.md", async () => {
  const { readdirSync } = await import("node:fs");
  const folder = new URL("extension/vendor/", root);
  const present = readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => `${(entry.parentPath ?? entry.path).slice(folder.pathname.length)}/${entry.name}`.replace(/^\//, ""))
    .sort();
  assert.deepEqual(present, [...Object.keys(VENDORED), "README.md"].sort());
});
