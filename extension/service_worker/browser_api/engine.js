// Which browser engine runs this code (the worker, the popup, the options page): the one place
// that knows Chromium from Firefox (STYLE: "Only browser_api.js knows Chromium from Firefox").
// Only the browser_api parts import it; browser_api.js does not re-export it.

/** Firefox: it has no `documentId` addressing, and its WindowType enum has no "app". */
export const IS_FIREFOX = /Firefox\//.test(globalThis.navigator?.userAgent ?? ""); // no navigator in node tests
