// The toolbar icon tells the provider's state at a glance, pure: a StatusView
// (settings.js describeStatus) → which icon set, which badge, which tooltip. main.js applies it
// through browser_api.js `setActionLook` whenever the status or the switch changes.
//
//   tone "ok"     blue icon, no badge              (connected)
//   tone "busy"   blue icon, no badge              (connecting, not started: usually a second)
//   tone "off"    grey icon, struck through        (the user switched the provider off)
//   tone "broken" red icon and a "!" badge         (native host missing or failing, version mismatch)
//
// The colour is never the only sign (the stroke, the badge and the tooltip's words say it too).
// The icons are made from popup/icons/*.svg by scripts/icons.py.

/** The icon sizes the toolbar uses (1x and 2x); the manifest's `action.default_icon` names the same. */
export const ACTION_ICON_SIZES = Object.freeze([16, 32]);

/** The badge's background for a broken provider: the popup's error red (contrast 6.5:1 with white). */
export const BROKEN_BADGE_COLOUR = "#b3261e";

/**
 * @typedef {object} ActionLook
 * @property {Record<string, string>} path  size → icon path, from the extension's root (a leading "/":
 *   `setIcon` in a service worker resolves a relative path against the worker's own folder)
 * @property {string} badge   badge text ("" for none)
 * @property {string} badgeColour
 * @property {string} title   the tooltip: "webctx: " and the state in words (the version mismatch first)
 */

/**
 * @param {import("./settings.js").StatusView} view
 * @returns {ActionLook}
 */
export function actionLook(view) {
  const broken = view.tone === "broken" || view.versions !== ""; // a version mismatch while connected too
  const variant = view.tone === "off" ? "icon-off" : broken ? "icon-broken" : "icon";
  /** @type {Record<string, string>} */
  const path = {};
  for (const size of ACTION_ICON_SIZES) path[String(size)] = `/popup/icons/${variant}-${size}.png`;
  return {
    path,
    badge: broken ? "!" : "",
    badgeColour: BROKEN_BADGE_COLOUR,
    title: `webctx: ${view.versions || view.label}`,
  };
}
