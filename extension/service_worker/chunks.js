// Reassembly of `chunk` frames from the native host (docs/internals/protocol.md, the `chunk` row): a message over the
// browser's 1 MiB host→extension limit comes as `chunk {of, index, count, data}` frames, whose
// `data` joined in index order is the message's JSON. Pure: native_port.js hands each `chunk`
// here and handles a completed message as if it had arrived whole.

import { CHUNK } from "../protocol.js";

/** @typedef {import("../protocol.js").NativeMessage} NativeMessage */

/** A chunk group that is not complete within this time is dropped (its sender gave up). */
export const CHUNK_GROUP_TIMEOUT_MS = 30_000;
/** Most chunks in one group: 64 × 1 MiB matches the 64 MiB frame limit the other way. */
export const MAX_CHUNKS = 64;

/** @typedef {{count: number, parts: string[], received: number, timer: ReturnType<typeof setTimeout>}} ChunkGroup */

/** The chunk groups of one native port, by `of`. */
export class ChunkGroups {
  /** @type {Map<string, ChunkGroup>} */
  #groups = new Map();

  /**
   * Collect one `chunk`. A malformed or inconsistent chunk, and a completed group that is not JSON
   * or is itself a chunk, are dropped with a warning.
   * @param {NativeMessage} message
   * @returns {{whole: unknown} | null} the reassembled message once its group is complete
   */
  add(message) {
    const { of, index, count, data } = /** @type {Record<string, unknown>} */ (message);
    const valid =
      (typeof of === "string" || typeof of === "number") &&
      typeof count === "number" && Number.isInteger(count) && count >= 1 && count <= MAX_CHUNKS &&
      typeof index === "number" && Number.isInteger(index) && index >= 0 && index < count &&
      typeof data === "string";
    if (!valid) {
      console.warn("webctx: dropped a malformed chunk");
      return null;
    }
    const key = String(of);
    const group = this.#groups.get(key) ?? this.#newGroup(key, count);
    const i = index;
    if (group.count !== count || group.parts[i] !== undefined) {
      console.warn("webctx: dropped an inconsistent chunk of group %s", key);
      return null;
    }
    group.parts[i] = data;
    group.received += 1;
    if (group.received < group.count) return null;
    clearTimeout(group.timer);
    this.#groups.delete(key);
    let whole;
    try {
      whole = JSON.parse(group.parts.join(""));
    } catch {
      console.warn("webctx: dropped chunk group %s: not JSON", key);
      return null;
    }
    if (whole?.type === CHUNK) {
      console.warn("webctx: dropped chunk group %s: chunks inside chunks", key);
      return null;
    }
    return { whole };
  }

  /** Drop every group (the port closed). */
  clear() {
    for (const [, group] of this.#groups) clearTimeout(group.timer);
    this.#groups.clear();
  }

  /**
   * @param {string} key the chunk-group id (`of`)
   * @param {number} count
   * @returns {ChunkGroup}
   */
  #newGroup(key, count) {
    // A group whose sender gave up would otherwise stay in memory for the port's lifetime.
    const timer = setTimeout(() => this.#groups.delete(key), CHUNK_GROUP_TIMEOUT_MS);
    /** @type {string[]} */
    const parts = new Array(count);
    const group = { count, parts, received: 0, timer };
    this.#groups.set(key, group);
    return group;
  }
}
