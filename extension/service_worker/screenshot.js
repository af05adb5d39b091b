// The screenshot's parts for `page.read` (page_read.js): the pacing of
// chrome.tabs.captureVisibleTab under the browser's quota, and the capture scaled in the worker
// (createImageBitmap + OffscreenCanvas, no page involved) to at most 1600 px on its longest side,
// as PNG (JPEG when the PNG would be over 1.5 MiB), in base64. No chrome.* here: the capture
// itself is browser_api.js `captureVisibleTab`. Pure parts (scaledSize, bytesToBase64, pngSize,
// CapturePacer) are node-tested (extension/test/page_read.test.js); shrinkScreenshot runs in a
// real Chromium in tests/e2e/test_page_read_worker.py. docs/internals/extension.md "The page on demand".

/** A screenshot's longest side after scaling, in image pixels (design16: enough to read text). */
export const MAX_SCREENSHOT_SIDE = 1600;
/** Above this a scaled PNG is sent as JPEG instead (photos, videos: PNG grows to several MiB). */
export const JPEG_ABOVE_BYTES = 1.5 * 1024 * 1024;
export const JPEG_QUALITY = 0.85;
/**
 * Chromium allows MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND = 2 captureVisibleTab calls per
 * extension in a window of 1 s that starts at the first call after the last window ended (a fixed
 * window, measured in Chromium 156: four calls at once, two refused; a retry 550 ms later refused
 * too, one 1,050 ms later served). The worker paces its own captures (CapturePacer) so it is not
 * refused, and retries a refused one once after CAPTURE_RETRY_MS.
 */
export const CAPTURES_PER_WINDOW = 2;
export const CAPTURE_WINDOW_MS = 1000;
/** Room for the time a call takes to reach the browser process (ms). */
export const CAPTURE_MARGIN_MS = 100;
export const CAPTURE_RETRY_MS = CAPTURE_WINDOW_MS + CAPTURE_MARGIN_MS;
/** The longest a capture waits for its turn; more is refused (the host gives up at 5 s). */
export const MAX_CAPTURE_WAIT_MS = 3000;

/**
 * What a screenshot becomes after scaling (shrinkScreenshot, or a fake in the node tests).
 * @typedef {{mimeType: "image/png" | "image/jpeg", data: string, width: number, height: number, capturedWidth: number, capturedHeight: number, capturedBytes?: number}} Shrunk
 */

/**
 * When each captureVisibleTab may start, so that no window of CAPTURE_WINDOW_MS holds more than
 * CAPTURES_PER_WINDOW of them (a sliding window: stricter than the browser's fixed one, so the
 * browser never refuses a paced call).
 */
export class CapturePacer {
  /** The start times given out, the last CAPTURES_PER_WINDOW, in order (ms). @type {number[]} */
  #starts = [];

  /**
   * Reserve the next start.
   * @param {number} now  ms, on the clock the starts are kept on
   * @returns {number | null}  ms to wait before the call; null when that would exceed MAX_CAPTURE_WAIT_MS
   *   (nothing is reserved then)
   */
  reserve(now) {
    const earliest = this.#starts.length < CAPTURES_PER_WINDOW ? now : this.#starts[this.#starts.length - CAPTURES_PER_WINDOW] + CAPTURE_WINDOW_MS + CAPTURE_MARGIN_MS;
    const start = Math.max(now, earliest);
    if (start - now > MAX_CAPTURE_WAIT_MS) return null;
    this.#starts = [...this.#starts, start].slice(-CAPTURES_PER_WINDOW);
    return start - now;
  }
}

/**
 * The size of a capture after scaling: the longest side at most `max`, the aspect kept.
 * @param {number} width  captured px
 * @param {number} height captured px
 * @param {number} [max]
 * @returns {{width: number, height: number, scale: number}}  whole pixels, at least 1; `scale` ≤ 1
 */
export function scaledSize(width, height, max = MAX_SCREENSHOT_SIDE) {
  const longest = Math.max(width, height);
  if (longest <= max) return { width, height, scale: 1 };
  const scale = max / longest;
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)), scale };
}

/** Bytes per String.fromCharCode call: its arguments go on the stack, so not a whole image at once. */
const BASE64_CHUNK = 0x8000;

/**
 * Base64 of `bytes`, in chunks (String.fromCharCode(...bytes) of a megabyte image overflows the stack).
 * @param {Uint8Array} bytes
 * @returns {string}
 */
export function bytesToBase64(bytes) {
  /** @type {string[]} */
  const parts = [];
  for (let start = 0; start < bytes.length; start += BASE64_CHUNK) {
    parts.push(String.fromCharCode.apply(null, /** @type {any} */ (bytes.subarray(start, start + BASE64_CHUNK))));
  }
  return btoa(parts.join(""));
}

/**
 * A PNG's width and height from its IHDR chunk (the first 24 bytes), or null when `bytes` is not a PNG.
 * @param {Uint8Array} bytes
 * @returns {{width: number, height: number} | null}
 */
export function pngSize(bytes) {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length < 24 || signature.some((b, i) => bytes[i] !== b)) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, 24);
  if (view.getUint32(12) !== 0x49484452) return null; // "IHDR"
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** @param {string} base64 @returns {Uint8Array<ArrayBuffer>} */
function base64Bytes(base64) {
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

/**
 * Scale a captured PNG (a data: URL) so its longest side is at most MAX_SCREENSHOT_SIDE, in the
 * worker (createImageBitmap + OffscreenCanvas; no page involved). A capture small enough already
 * is sent as it came (no decode, no re-encode); a re-encoded PNG above JPEG_ABOVE_BYTES is sent as
 * JPEG (quality JPEG_QUALITY) instead.
 * @param {string} dataUrl  `data:image/png;base64,…`
 * @returns {Promise<Shrunk>}
 */
export async function shrinkScreenshot(dataUrl) {
  const comma = dataUrl.indexOf(",");
  const base64 = dataUrl.slice(comma + 1);
  // 32 base64 characters are the first 24 bytes: the signature and the IHDR's size.
  const size = pngSize(base64Bytes(base64.slice(0, 32)));
  if (!size) throw new Error("the browser's capture is not a PNG");
  const target = scaledSize(size.width, size.height);
  const capturedBytes = Math.floor((base64.length * 3) / 4);
  if (target.scale === 1 && capturedBytes <= JPEG_ABOVE_BYTES) {
    return { mimeType: "image/png", data: base64, width: size.width, height: size.height, capturedWidth: size.width, capturedHeight: size.height, capturedBytes };
  }
  // fetch decodes the data: URL natively (atob and a byte loop take ~10x longer on a 7 MB capture).
  const captured = await (await fetch(dataUrl)).blob();
  const bitmap = await createImageBitmap(captured, {
    resizeWidth: target.width,
    resizeHeight: target.height,
    resizeQuality: "high",
  });
  try {
    const canvas = new OffscreenCanvas(target.width, target.height);
    const context = canvas.getContext("2d");
    if (!context) throw new Error("no 2d canvas in this worker");
    context.drawImage(bitmap, 0, 0);
    // A PNG shrinks about with the pixel count: when the capture's PNG, so scaled, is above the
    // limit already, encode a JPEG at once (a PNG encode of a photo-like 1600 x 900 takes ~1 s).
    /** @type {"image/png" | "image/jpeg"} */
    let mimeType = capturedBytes * target.scale * target.scale > JPEG_ABOVE_BYTES ? "image/jpeg" : "image/png";
    let blob = await canvas.convertToBlob(mimeType === "image/png" ? { type: mimeType } : { type: mimeType, quality: JPEG_QUALITY });
    if (mimeType === "image/png" && blob.size > JPEG_ABOVE_BYTES) {
      mimeType = "image/jpeg";
      blob = await canvas.convertToBlob({ type: mimeType, quality: JPEG_QUALITY });
    }
    const data = bytesToBase64(new Uint8Array(await blob.arrayBuffer()));
    return { mimeType, data, width: target.width, height: target.height, capturedWidth: size.width, capturedHeight: size.height, capturedBytes };
  } finally {
    bitmap.close();
  }
}

