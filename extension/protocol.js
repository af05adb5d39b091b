// Message type names and shapes shared by the extension's worlds (docs/internals/protocol.md is the contract).
//
// Native port (worker ⇄ native host): hello, current, location, chunk, result, error, tree, page.read.
// Inside the extension (content ⇄ worker): frame.changed, location.get, location.offset, tools.*;
// requests to a page go on its page channel (service_worker/page_channel.js, content/page_port.js).
// What the native host shares (the protocol version, the native-port types, the error codes) is
// generated from native_host/protocol/ into wire.js and re-exported here; the types that stay
// inside the extension are written below.

export {
  PROTOCOL_VERSION,
  NATIVE_HOST_NAME,
  HELLO,
  CURRENT,
  LOCATION,
  PING,
  TOOLS_CALL,
  TOOLS_CANCEL,
  TOOLS_CHANGED,
  TREE,
  CHUNK,
  RESULT,
  ERROR,
  PROVIDER_READY,
  ACTIVITY,
  PAGE_READ,
  NATIVE_MESSAGE_TYPES,
  ERROR_CODES,
  SUBROLES,
} from "./wire.js";

export const FRAME_CHANGED = "frame.changed";
export const LOCATION_GET = "location.get";
export const LOCATION_OFFSET = "location.offset";
/** worker → the offscreen document (offscreen/pdf_text.js): a PDF's text, `{url, maxBytes, maxPdfBytes, deadlineMs}`
 * (service_worker/pdf_text.js; docs/internals/extension.md "A PDF's text"). */
export const PDF_TEXT = "pdf.text";
/** worker → a parent frame, beside `location.get`: the <iframe> holding a child document (docs/internals/protocol.md). */
export const LOCATION_FRAME = "location.frame";
/** content → worker: the page's tools changed (docs/internals/protocol.md "Page tools"). */
export const TOOLS_REPORT = "tools.report";
/** content → worker: a cross-origin frame is here (content/webmcp_frames.js); its tools may be listed by the top. */
export const TOOLS_FRAME = "tools.frame";
/** worker → content: run / abort a page tool in the top frame. */
export const TOOLS_RUN = "tools.run";
export const TOOLS_ABORT = "tools.abort";
/** content → worker, as an event on the page channel (service_worker/page_channel.js): the
 * page's visibilityState changed (a headed browser's window was minimized or restored); the
 * worker compares the exposed tools again. */
export const TOOLS_VISIBILITY = "tools.visibility";

/** `chrome.storage.session` key of the connection status the popup shows. */
export const STATUS_KEY = "status";

// ---------------------------------------------------------------------------------------------
// Shapes (JSDoc only).

/**
 * One element of the tree (design.md §2). States are written only where they differ from the default.
 * @typedef {object} Element
 * @property {string} id          matches ID_PATTERN (wire.js)
 * @property {string} role        "Application" | "Window" | "Page" | "Text" | …
 * @property {string} [subrole]
 * @property {string} [title]
 * @property {ContentBlock[]} [content]
 * @property {string} [url]
 * @property {boolean} [selected]
 * @property {boolean} [focused]
 * @property {boolean} [visible]
 * @property {boolean} [hovered]
 * @property {Element[]} [children]
 * @property {Record<string, unknown>} [attributes]
 */

/**
 * An MCP content block: text (a Text element's words), or a resource_link (a Page's readable text
 * and screenshot: read with `resources/read`).
 * @typedef {{type: "text", text: string} | ResourceLink} ContentBlock
 */

/**
 * An MCP resource_link content block (design.md §2 "The page on demand"; docs/internals/protocol.md).
 * @typedef {{type: "resource_link", uri: string, name: string, mimeType: string}} ResourceLink
 */

/**
 * What a content script reports about the selection in its document (docs/internals/protocol.md,
 * "Inside the extension").
 * @typedef {object} Selection
 * @property {number} key     the content script's own number for the live Range; with the
 *                            sender's documentId it names the passage
 * @property {string} text    at most 65536 UTF-16 code units (the content script's pre-cap)
 * @property {string} before  up to 200 characters of text before the selection
 * @property {string} after   up to 200 characters of text after the selection
 * @property {number} length  the full length of the selected text in UTF-16 code units
 * @property {{key: number, kind: "input" | "textarea" | "contenteditable"}} [field]  the field
 *                            (textbox Group) holding the selection
 * @property {boolean} [hidden]  text of hidden elements was left out of `text` (docs/internals/protocol.md)
 * @property {string} [editor]   the code editor whose model (or EditContext) the selection was read
 *                            from: "monaco", "codemirror", "editcontext", … (content/editor_selection.js)
 * @property {boolean} [partial] the editor holds more of the selection than the DOM showed, and
 *                            its model was out of reach: `text` and `length` are the DOM's share
 */

/**
 * The focused editable field of a frame: a textbox Group (design.md §2).
 * @typedef {object} FieldFacts
 * @property {number} key       the content script's key for the field element
 * @property {"input" | "textarea" | "contenteditable"} kind
 * @property {string} [title]   aria-label, placeholder or name
 * @property {string} [content] the field's text (pre-capped at 65536 code units); never for a
 *                              sensitive field
 * @property {number} [length]  the full length of the text in UTF-16 code units
 * @property {boolean} [sensitive]  a secret field (content/secret_fields.js): no content, no selection
 * @property {boolean} [pending] the user is typing in this large field and its text changes
 *                              without pushes until typing pauses (report.js): the worker pulls
 *                              the tab at `current`; a push leaves `content`/`length` out
 */

/**
 * The innermost Link or Image under the pointer (design.md §2 hover).
 * @typedef {object} HoverFacts
 * @property {number} key
 * @property {"Link" | "Image"} role
 * @property {string} url      the link's href or the image's src
 * @property {string} title    the link text or the image's alt
 * @property {number} at       when the hover started, ms since the epoch
 */

/**
 * What one frame's content script reports (docs/internals/protocol.md "Inside the extension").
 * @typedef {object} FrameReport
 * @property {boolean} isTop
 * @property {boolean} hasFocus      document.hasFocus()
 * @property {string} url
 * @property {string} [lang]         <html lang>
 * @property {boolean} [pdf]         the document is Chromium's PDF viewer (contentType application/pdf)
 * @property {Selection | null} selection
 * @property {number} selectionAt    when the selection last changed, ms since the epoch (0: never)
 * @property {FieldFacts | null} focus
 * @property {HoverFacts | null} hover
 * @property {string} [token]        a random id the content script made for this document at start
 *                                   (keys the document where the browser has no documentId: Firefox)
 * @property {string} [parentToken]  the parent frame's `token`, learnt by postMessage (nested frames)
 */

/**
 * `hello`, worker → host.
 * @typedef {object} HelloMessage
 * @property {"hello"} type
 * @property {string} id
 * @property {string} protocol
 * @property {{id: string, version: string}} extension
 * @property {{name: string, version: string, userAgent: string}} browser
 * @property {{enabled: boolean}} settings
 */

/**
 * The `result` of `hello`.
 * @typedef {{instance: string, protocol: string, version?: string, listening: boolean}} HelloResult
 *   `version`: the native host's webctx version (older hosts do not send it)
 */

/**
 * `chunk`, host → worker: one slice of the JSON text of a message larger than 1 MiB.
 * @typedef {{type: "chunk", of: string | number, index: number, count: number, data: string}} ChunkMessage
 */

/**
 * `error` body.
 * @typedef {{code: string, message: string}} ErrorBody
 */

/**
 * Any message on the native port, before its type is checked.
 * @typedef {{type: string, id?: string} & Record<string, unknown>} NativeMessage
 */

/**
 * The extension and the native host disagree: both sides' webctx and protocol versions (`host.version`
 * undefined: a host too old to say it), which side to update (the older one) and `message`, one
 * sentence naming both versions and the fix, for the popup. The same rule and words as the native
 * host's log and `webctx doctor` (native_host/protocol/version.py `version_mismatch`).
 * @typedef {object} VersionMismatch
 * @property {{version: string, protocol: string}} extension
 * @property {{version?: string, protocol: string}} host
 * @property {"extension" | "native host"} update
 * @property {string} message
 */

/**
 * The connection status the worker keeps in `chrome.storage.session` under STATUS_KEY.
 * @typedef {object} ConnectionStatus
 * @property {"connecting" | "connected" | "disconnected" | "off" | "mismatch" | string} state  "off": the user
 *   switched the provider off; "mismatch": extension and native host versions differ; the popup
 *   shows any other state by its `words` (settings.js describeStatus)
 * @property {string} [error]     the dropped port's chrome.runtime.lastError.message
 * @property {string} [words]     the state in words, for a state the popup has no sentence of its own for
 * @property {string} [fix]       the command that fixes it
 * @property {string} [instance]  the native host's instance (when connected)
 * @property {number} [port]      the MCP endpoint's port on 127.0.0.1 (once `provider.ready` came)
 * @property {boolean} [viaProvider] `port` is the browser's provider's: another profile's native host
 *   publishes the descriptor and serves this profile's windows and page tools (our host stands by)
 * @property {number} [pagesWithTools]  Pages listing page tools in the last `current` answer
 * @property {number} [retryAt]   when the next connection attempt is due (ms since the epoch)
 * @property {VersionMismatch} [versionMismatch]  set while connected to a native host whose
 *   protocol (major.minor) or webctx version differs from this extension's
 *   (docs/internals/extension.md "Version mismatch")
 * @property {number} at          when this status was written (ms since the epoch)
 */
