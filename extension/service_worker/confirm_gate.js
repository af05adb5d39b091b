// Confirmation of consequential page tools (design.md §5 "User control"): the pending prompts and how
// each one ends. Pure: the window and the clock come in as `GateDeps`, so node tests drive it.
//
//   tools.call ──► ask(request) ──► deps.open(key, view) ──► confirm/confirm.html?key=…
//                     │                                        │ Port "confirm:<key>"
//                     │ ◄── answer(key, allow) ◄────────────────┘ (Allow / Deny)
//                     │ ◄── portClosed(key) / windowClosed(id)     (the user closed the prompt)
//                     │ ◄── timer (the call's deadline), cancel(callId), tabGone(tabId)
//                     ▼
//   Decision: "allow" | "deny" | "closed" | "timeout" | "cancelled" | "gone"; the window closes.
//
// Which tools ask (decided in docs/internals/extension.md): only those whose page marks them
// `consequentialHint: true` (WebMCP annotations); a tool without
// `readOnlyHint` does not ask, or nearly every page tool would.
//
// The prompt shows every argument (prompt_arguments.js); when they cannot all be shown, it offers
// no Allow, and an "allow" answer for such a view is taken as a denial here too.

import { argumentsView } from "./prompt_arguments.js";

/** @typedef {"allow" | "deny" | "closed" | "timeout" | "cancelled" | "gone"} Decision */

/**
 * The prompt's view of the call (the page shows it with textContent: escaped by construction).
 * @typedef {object} PromptView
 * @property {string} toolName     the page's WebMCP name
 * @property {string} description  cut to MAX_PROMPT_DESCRIPTION_CHARS
 * @property {string} pageTitle    cut to MAX_PROMPT_TITLE_CHARS
 * @property {string} origin       the origin that registered the tool (a cross-origin frame's own)
 * @property {string} [frameOf]    set when that is a frame: the origin of the tab's top document
 * @property {import("./prompt_arguments.js").ArgumentsView} arguments  every argument, or why not
 * @property {number} expiresAt    ms since the epoch when the prompt gives up (the call's deadline)
 */

/**
 * @typedef {object} ConfirmRequest
 * @property {string} callId   the `tools.call` request id (the host's `tools.cancel` names it)
 * @property {number} tabId
 * @property {{name: string, description: string, annotations?: {consequentialHint?: boolean}}} tool
 * @property {string} origin     the origin that registered the tool
 * @property {string} [frameOf]  the top document's origin, when the tool is a cross-origin frame's
 * @property {string} pageTitle
 * @property {unknown} input
 * @property {unknown} [deadlineMs]  the host's deadline for the whole call (tools.call `deadlineMs`)
 */

/**
 * @typedef {object} GateDeps
 * @property {() => Promise<boolean>} enabled  the user's "confirmConsequential" setting, read per call
 * @property {(key: string, view: PromptView) => Promise<number | undefined>} open  opens the prompt
 *   window for `key`; resolves to its window id (undefined: it could not be opened)
 * @property {(windowId: number) => void} close
 * @property {() => string} newKey  an unguessable key (the prompt's URL carries it)
 * @property {() => number} [now]  ms since the epoch
 * @property {(fn: () => void, ms: number) => unknown} [setTimer]
 * @property {(timer: unknown) => void} [clearTimer]
 */

/** The host's default page-tool deadline (native_host/protocol/native.py PAGE_TOOL_DEADLINE_MS), in ms. */
export const DEFAULT_CALL_DEADLINE_MS = 60_000;
export const MAX_PROMPT_DESCRIPTION_CHARS = 600;
export const MAX_PROMPT_TITLE_CHARS = 120;

/**
 * Whether a call of `tool` asks the user first.
 * @param {ConfirmRequest["tool"] | undefined} tool
 * @returns {boolean}
 */
export function isConsequential(tool) {
  return tool?.annotations?.consequentialHint === true;
}

/**
 * How long the prompt waits, in ms: the call's deadline less a margin, so the "timed out" answer
 * reaches the host before its own deadline fires (10 %, between 200 ms and 1 s).
 * @param {unknown} deadlineMs
 * @returns {number}
 */
export function promptTimeoutMs(deadlineMs) {
  const deadline = typeof deadlineMs === "number" && Number.isFinite(deadlineMs) && deadlineMs > 0 ? deadlineMs : DEFAULT_CALL_DEADLINE_MS;
  return Math.max(0, deadline - Math.min(1000, Math.max(200, deadline / 10)));
}

/**
 * `text` cut to `max` code units (never splitting a surrogate pair), ending in "…" when cut.
 * @param {string} text
 * @param {number} max
 */
export function cut(text, max) {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/**
 * @param {ConfirmRequest} request
 * @param {number} expiresAt
 * @returns {PromptView}
 */
export function promptView(request, expiresAt) {
  return {
    toolName: request.tool.name,
    description: cut(request.tool.description, MAX_PROMPT_DESCRIPTION_CHARS),
    pageTitle: cut(request.pageTitle, MAX_PROMPT_TITLE_CHARS),
    origin: request.origin,
    ...(request.frameOf ? { frameOf: request.frameOf } : {}),
    arguments: argumentsView(request.input),
    expiresAt,
  };
}

/**
 * The sentence the agent gets for a call that did not run (the host passes it on as `isError`).
 * @param {Exclude<Decision, "allow" | "gone">} decision
 * @param {number} timeoutMs
 * @returns {string}
 */
export function refusalText(decision, timeoutMs) {
  switch (decision) {
    case "deny":
      return "The call was declined by the user in the browser's confirmation prompt; the tool did not run. Do not retry it unless the user asks.";
    case "closed":
      return "The call was declined by the user: the browser's confirmation prompt was closed without an answer, and the tool did not run.";
    case "timeout":
      return `The browser's confirmation prompt got no answer within ${Math.round(timeoutMs / 100) / 10} s (confirmation timed out); the tool did not run. Ask the user to watch for the prompt, then try again.`;
    case "cancelled":
      return "The call was cancelled while it waited for the user's confirmation; the tool did not run.";
  }
}

/**
 * @typedef {object} Pending
 * @property {string} callId
 * @property {number} tabId
 * @property {PromptView} view
 * @property {number | undefined} windowId
 * @property {unknown} timer
 * @property {(decision: Decision) => void} resolve
 */

export class ConfirmGate {
  /** @param {GateDeps} deps */
  constructor(deps) {
    this.deps = deps;
  }

  /** Pending prompts by key. @type {Map<string, Pending>} */
  #pending = new Map();

  /** @returns {number} how many prompts are open */
  get size() {
    return this.#pending.size;
  }

  /**
   * Decide whether the call may run: "allow" at once for a tool that is not consequential or when
   * the setting is off; otherwise the user's answer, or why there was none.
   * @param {ConfirmRequest} request
   * @returns {Promise<Decision>}
   */
  async ask(request) {
    if (!isConsequential(request.tool) || !(await this.deps.enabled())) return "allow";
    const now = this.deps.now ?? Date.now;
    const setTimer = this.deps.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    const timeoutMs = promptTimeoutMs(request.deadlineMs);
    const key = this.deps.newKey();
    const view = promptView(request, now() + timeoutMs);
    /** @type {Promise<Decision>} */
    const decided = new Promise((resolve) => {
      /** @type {Pending} */
      const pending = { callId: request.callId, tabId: request.tabId, view, windowId: undefined, timer: 0, resolve };
      pending.timer = setTimer(() => this.#end(key, "timeout"), timeoutMs);
      this.#pending.set(key, pending);
    });
    this.deps.open(key, view).then(
      (windowId) => this.#opened(key, windowId),
      () => this.#opened(key, undefined),
    );
    return decided;
  }

  /**
   * The prompt page for `key` asks what to show. Undefined for an unknown or finished key.
   * @param {string} key
   * @returns {PromptView | undefined}
   */
  view(key) {
    return this.#pending.get(key)?.view;
  }

  /**
   * The user pressed Allow or Deny in the prompt of `key`.
   * @param {string} key
   * @param {boolean} allow
   */
  answer(key, allow) {
    // No Allow is offered for arguments the prompt could not show whole: an "allow" is a denial.
    const whole = this.#pending.get(key)?.view.arguments.complete === true;
    this.#end(key, allow && whole ? "allow" : "deny");
  }

  /**
   * The prompt page of `key` went away (its window was closed) before an answer.
   * @param {string} key
   */
  portClosed(key) {
    this.#end(key, "closed");
  }

  /**
   * A window closed: if it was a prompt, that prompt was dismissed.
   * @param {number} windowId
   */
  windowClosed(windowId) {
    for (const [key, pending] of this.#pending) if (pending.windowId === windowId) this.#end(key, "closed");
  }

  /**
   * The host cancelled call `callId` (`tools.cancel`): close its prompt. Returns whether one was open.
   * @param {string} callId
   * @returns {boolean}
   */
  cancel(callId) {
    for (const [key, pending] of this.#pending) {
      if (pending.callId === callId) {
        this.#end(key, "cancelled");
        return true;
      }
    }
    return false;
  }

  /**
   * A tab closed: its pending prompts end ("gone").
   * @param {number} tabId
   */
  tabGone(tabId) {
    for (const [key, pending] of this.#pending) if (pending.tabId === tabId) this.#end(key, "gone");
  }

  /**
   * @param {string} key
   * @param {number | undefined} windowId
   */
  #opened(key, windowId) {
    const pending = this.#pending.get(key);
    if (!pending) {
      if (windowId !== undefined) this.deps.close(windowId); // decided (timeout, cancel) while opening
      return;
    }
    if (windowId === undefined) {
      this.#end(key, "closed"); // no window: nobody can answer
      return;
    }
    pending.windowId = windowId;
  }

  /**
   * @param {string} key
   * @param {Decision} decision
   */
  #end(key, decision) {
    const pending = this.#pending.get(key);
    if (!pending) return; // already decided: the first answer wins
    this.#pending.delete(key);
    (this.deps.clearTimer ?? ((timer) => clearTimeout(/** @type {number} */ (timer))))(pending.timer);
    if (pending.windowId !== undefined) this.deps.close(pending.windowId);
    pending.resolve(decision);
  }
}
