// browser_api part: action: the toolbar button's icon, badge and tooltip (action_icon.js decides them).

/**
 * Show `look` on the toolbar button (every tab). Errors are returned, not thrown: the button is
 * cosmetic and a failure here (the browser shutting down) must not break the provider.
 * @param {import("../action_icon.js").ActionLook} look
 * @returns {Promise<string>}  "" when shown, else the browser's error message
 */
export async function setActionLook(look) {
  try {
    await Promise.all([
      chrome.action.setIcon({ path: look.path }),
      chrome.action.setBadgeText({ text: look.badge }),
      chrome.action.setBadgeBackgroundColor({ color: look.badgeColour }),
      chrome.action.setTitle({ title: look.title }),
    ]);
    return "";
  } catch (error) {
    return String(error); // the next status change tries again
  }
}
