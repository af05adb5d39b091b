// The excluded-sites list: validation for the options page, one-click exclude for the popup
// (settings.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  describeSite,
  excludeSite,
  normalizeSettings,
  rulesExcluding,
  shareSiteAgain,
  siteOf,
  validateSiteList,
} from "../service_worker/settings.js";

test("host names, *.domains and URLs are accepted and normalized", () => {
  const { sites, errors } = validateSiteList("Mail.Example.com\n*.b.org, https://c.net:8443/x\nd.io.\nbücher.de\n127.0.0.1\nlocalhost");
  assert.deepEqual(errors, []);
  assert.deepEqual(sites, ["mail.example.com", "b.org", "c.net", "d.io", "xn--bcher-kva.de", "127.0.0.1", "localhost"]);
});

test("wrong entries are errors naming their line, the valid ones are still listed", () => {
  const { sites, errors } = validateSiteList("good.com\nfoo*bar.com\n\nbad_host x.com\n-lead.com\nhttp://\n*.");
  assert.deepEqual(sites, ["good.com", "x.com"]);
  assert.deepEqual(
    errors.map((e) => [e.line, e.entry]),
    [[2, "foo*bar.com"], [4, "bad_host"], [5, "-lead.com"], [6, "http://"], [7, "*."]],
  );
  assert.match(errors[0].message, /a \* may only start the entry/);
  assert.match(errors[1].message, /not a host name/);
});

test("duplicates are dropped silently; more than the cap is an error", () => {
  assert.deepEqual(validateSiteList("a.com\nA.com\n*.a.com").errors, []);
  const many = Array.from({ length: 501 }, (_, i) => `s${i}.com`).join("\n");
  const { sites, errors } = validateSiteList(many);
  assert.equal(sites.length, 500);
  assert.equal(errors.length, 1);
  assert.equal(errors[0].line, 501);
});

test("siteOf: the host of web pages only", () => {
  assert.equal(siteOf("https://Docs.Example.com/a?b"), "docs.example.com");
  assert.equal(siteOf("http://127.0.0.1:8000/x"), "127.0.0.1");
  assert.equal(siteOf("chrome://extensions"), "");
  assert.equal(siteOf("file:///tmp/a.html"), "");
  assert.equal(siteOf(undefined), "");
});

test("exclude adds the site once; share again removes every rule that excludes it", () => {
  assert.deepEqual(excludeSite([], "a.example.com"), ["a.example.com"]);
  assert.deepEqual(excludeSite(["example.com"], "a.example.com"), ["example.com"]); // already excluded
  assert.deepEqual(excludeSite(["x.org"], ""), ["x.org"]);
  assert.deepEqual(shareSiteAgain(["x.org", "example.com", "a.example.com"], "a.example.com"), ["x.org"]);
  assert.deepEqual(shareSiteAgain(["x.org"], "a.example.com"), ["x.org"]);
  assert.deepEqual(rulesExcluding(["ample.com"], "example.com"), []); // a suffix is not a parent domain
});

test("the This site section's words and button", () => {
  const settings = normalizeSettings({ excludedSites: ["example.com"] });
  assert.deepEqual(describeSite("example.com", false, settings), {
    text: "example.com is not shared: it is excluded.",
    action: "share",
    button: "Share this site again",
  });
  assert.equal(describeSite("a.example.com", false, settings).text, "a.example.com is not shared: it is excluded by the rule *.example.com.");
  assert.deepEqual(describeSite("other.org", false, settings), {
    text: "other.org is shared with desktop AI hosts.",
    action: "exclude",
    button: "Don't share this site",
  });
  assert.equal(describeSite("other.org", false, { ...settings, enabled: false }).text, "other.org is shared when the provider is on.");
  assert.match(describeSite("other.org", true, settings).text, /incognito/);
  assert.equal(describeSite("", false, settings).action, "");
});

test("the This site section on a local file says whether files are shared and how to switch them on", () => {
  const off = describeSite("", false, normalizeSettings({}), true);
  assert.equal(off.text, 'This local file is not shared: local files are off. To share it, switch on "Share local files (file://)" in Settings.');
  assert.equal(off.action, "");
  assert.match(describeSite("", false, normalizeSettings({ localFiles: true }), true).text, /^This local file is shared/);
});
