// The pushed tree: the worker keeps the native host's copy of the `current` answer up to date, so
// the host answers `current` without a round trip (docs/internals/protocol.md "Pushed tree").
//
//   anything the tree shows may have changed (tab model, focus, frame reports, page tools,
//   settings, the window-state poll, a new instance) ──► schedule()   (coalesced: one timer)
//   timer ──► build() ──► {complete, root, windowFocused} ──► send `tree` only when it differs
//                                                              from the last one sent
//   a change during a build marks it dirty: one more build follows; `retryInMs` from a build
//   (a selection still settling) schedules one more then.
//
// Pure: no chrome.* here (main.js passes build and send); node tests drive it with fake timers.

/**
 * What one build says.
 * @typedef {object} BuiltTree
 * @property {boolean} complete  false: the tree needs a page asked first; the host pulls
 * @property {import("../protocol.js").Element} [root]  when complete
 * @property {boolean} [windowFocused]  when complete
 * @property {number} [retryInMs]  build again after this many ms (something settles then)
 */

/**
 * @typedef {object} PusherDeps
 * @property {() => Promise<BuiltTree | null>} build  null: nothing to push now (no port, no instance)
 * @property {(body: Record<string, unknown>) => boolean} send  sends `tree`; false when it could not
 * @property {number} [delayMs]  wait this long after the first change before building (coalescing)
 * @property {(fn: () => void, ms: number) => unknown} [setTimer]
 * @property {(timer: unknown) => void} [clearTimer]
 */

/** Default wait between a change and the build, ms: the next task, so a burst of events is one build. */
export const TREE_PUSH_DELAY_MS = 0;

export class TreePusher {
  /** @param {PusherDeps} deps */
  constructor(deps) {
    this.deps = deps;
    this.#setTimer = deps.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.#clearTimer = deps.clearTimer ?? ((t) => clearTimeout(/** @type {any} */ (t)));
  }

  /** @type {(fn: () => void, ms: number) => unknown} */ #setTimer;
  /** @type {(timer: unknown) => void} */ #clearTimer;
  /** @type {unknown} */ #timer = null;
  /** @type {unknown} */ #retryTimer = null;
  #building = false;
  #dirty = false;
  /** Bumped by reset(): a build that started before it does not send. */
  #generation = 0;
  /** The JSON of the last `tree` sent on this port ("" : none yet). */
  lastSent = "";
  /** How many builds ran and how many `tree` messages went out (tests, diagnostics). */
  builds = 0;
  sent = 0;

  /** Something the tree shows may have changed: build soon (coalesced with other changes). */
  schedule() {
    if (this.#building) {
      this.#dirty = true;
      return;
    }
    if (this.#timer !== null) return;
    this.#timer = this.#setTimer(() => {
      this.#timer = null;
      void this.#run();
    }, this.deps.delayMs ?? TREE_PUSH_DELAY_MS);
  }

  /** A new port (a new native host): it has no tree; the next build sends whatever it makes. */
  reset() {
    this.#generation++;
    this.lastSent = "";
    if (this.#retryTimer !== null) this.#clearTimer(this.#retryTimer);
    this.#retryTimer = null;
  }

  async #run() {
    this.#building = true;
    this.#dirty = false;
    const generation = this.#generation;
    try {
      this.builds++;
      const built = await this.deps.build();
      if (!built || generation !== this.#generation) return;
      /** @type {Record<string, unknown>} */
      const body = built.complete
        ? { complete: true, root: built.root, windowFocused: Boolean(built.windowFocused) }
        : { complete: false };
      const text = JSON.stringify(body);
      if (text !== this.lastSent) {
        if (this.deps.send(body)) {
          this.lastSent = text;
          this.sent++;
        } else if (built.complete) {
          // Refused (over the 64 MiB a message may have): the host must not keep answering
          // with the tree before it, so it is told to ask instead.
          this.#sendIncomplete();
        }
      }
      if (built.retryInMs !== undefined) this.#retryIn(built.retryInMs);
    } catch (error) {
      // Never leave the host with a tree that may be wrong: say "ask me" instead.
      console.warn("webctx: building the pushed tree failed: %s", error instanceof Error ? error.message : String(error));
      if (generation === this.#generation) this.#sendIncomplete();
    } finally {
      this.#building = false;
      if (this.#dirty || generation !== this.#generation) this.schedule();
    }
  }

  /** Tell the host to ask (`complete: false`), unless that is what it was told last. */
  #sendIncomplete() {
    const text = JSON.stringify({ complete: false });
    if (text !== this.lastSent && this.deps.send({ complete: false })) {
      this.lastSent = text;
      this.sent++;
    }
  }

  /** @param {number} ms build once more then (one retry timer at a time; that build asks again if it must) */
  #retryIn(ms) {
    if (this.#retryTimer !== null) return;
    this.#retryTimer = this.#setTimer(() => {
      this.#retryTimer = null;
      this.schedule();
    }, Math.max(0, ms));
  }
}
