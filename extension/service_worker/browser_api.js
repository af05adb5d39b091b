// The only service-worker code that touches chrome.*: this module and its parts in browser_api/
// (STYLE: "Only browser_api.js knows Chromium from Firefox"; browser_api/engine.js is where it
// does). Thin wrappers: no policy here, just the calls and their error shapes. Callers import this
// module (`import * as api from "./browser_api.js"`); each part is one concern:
//
//   browser_api/runtime.js   the native port, this extension's id and version, the browser's brands,
//                            incognito access, the toolbar badge's text
//   browser_api/windows.js   windows and tabs: reads, the tab model's events, visibility events,
//                            zoom, a capture of the visible tab, the confirmation prompt's window
//   browser_api/pages.js     content scripts: messages, ports, injection (also on demand), frame reports; ports from
//                            this extension's own pages
//   browser_api/storage.js   settings, connection status, session flags (popup and options too)
//   browser_api/action.js    the toolbar button: icon, badge, tooltip
//   browser_api/offscreen.js the offscreen document that reads a PDF's text

export * from "./browser_api/runtime.js";
export * from "./browser_api/windows.js";
export * from "./browser_api/pages.js";
export * from "./browser_api/storage.js";
export * from "./browser_api/action.js";
export * from "./browser_api/offscreen.js";
