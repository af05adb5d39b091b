// webctx, the page's main world, top frame, document_start: keep the text of a page tool's error
// under native WebMCP (design.md §5 "execute throws → isError with its message").
//
// Chromium's executeTool() rejects with a generic UnknownError whatever the tool threw
//, so the isolated-world bridge cannot see "out of stock". Here the
// native registerTool is wrapped so each tool's `execute` notes what it threw, then rethrows:
//
//   page: registerTool(tool) ──► wrapper: tool' = Object.create(tool) with getters for `name`
//     and `execute` (each reads the page's member once, in the order Chromium reads them)
//   Chromium calls execute'(input, client) ──► page's execute ── throws/rejects ──► record
//     {tool name, input as JSON, message} ──► every MessagePort handed to the bridge ──► rethrow
//   the MessagePort: from content/errors_port.js (isolated world, document_start), handed over by
//     a synchronous event before any page script runs; its other end is read by webmcp_errors.js
//
// Invisible to the page: registerTool keeps its name, length and toString() (a Proxy, and
// Function.prototype.toString answers for it as for the native function); results, errors, timing
// of resolution and the number and order of reads of the page's tool members stay the same.
// A page cannot forge a record: it never sees the port (the hand-over is over before its first
// script runs), and the bridge takes a record only for its own failed call of the same tool with
// the same input. Polyfill mode (no native registerTool): only the port is taken (so that nothing
// else can take it). Frames, and a late injection into an open tab: nothing happens here.

(function webctxNativeErrors() {
  if (window !== window.top || document.readyState !== "loading") return;
  /** An input whose JSON is longer than this is not keyed (its error stays generic). */
  const MAX_KEY_CHARS = 1024 * 1024;
  const MAX_MESSAGE_CHARS = 2000;
  /** What the call says when the page threw a prototype-less object or a Proxy whose traps throw
   * (the same sentence as main_world/polyfill.js NOT_AN_ERROR; extension/test/polyfill.test.js). */
  const NOT_AN_ERROR = "The page's tool threw something that is not an Error (no message can be read from it); the tool did not finish. The page's author can fix it by throwing an Error.";

  // Built-ins saved before page code can replace them (STYLE "Content scripts and the polyfill").
  const ProxyCtor = Proxy;
  const apply = Reflect.apply;
  const create = Object.create;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const getPrototypeOf = Object.getPrototypeOf;
  const defineProperty = Object.defineProperty;
  const stringify = JSON.stringify;
  const promiseThen = Promise.prototype.then;
  const functionToString = Function.prototype.toString;
  const portPost = MessagePort.prototype.postMessage;
  const MessageEventCtor = MessageEvent;
  const EventCtor = Event;
  const addListener = EventTarget.prototype.addEventListener;
  const removeListener = EventTarget.prototype.removeEventListener;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const preventDefault = Event.prototype.preventDefault;
  const portsOf = /** @type {PropertyDescriptor} */ (getOwnPropertyDescriptor(MessageEvent.prototype, "ports")).get;

  // The private port first, in every mode (content/errors_port.js): whichever script runs second
  // completes the hand-over, synchronously, before any page script.
  /** @type {MessagePort | null} */
  let port = null;
  const onPort = (/** @type {Event} */ event) => {
    if (port || !(event instanceof MessageEventCtor) || !portsOf) return;
    const [given] = /** @type {readonly MessagePort[]} */ (apply(portsOf, event, []));
    if (!given) return;
    port = given;
    apply(preventDefault, event, []);
    apply(removeListener, window, ["webctx-errors-port", onPort]);
  };
  apply(addListener, window, ["webctx-errors-port", onPort]);
  apply(dispatch, window, [new EventCtor("webctx-errors-hello")]);

  let context;
  try {
    context = /** @type {any} */ (document).modelContext;
  } catch {
    return;
  }
  if (typeof context !== "object" || context === null) return;
  // The registerTool on the context's prototype chain, if it is the browser's own.
  /** @type {object | null} */
  let owner = Object.getPrototypeOf(context);
  /** @type {PropertyDescriptor | undefined} */
  let descriptor;
  while (owner && !(descriptor = getOwnPropertyDescriptor(owner, "registerTool"))) owner = Object.getPrototypeOf(owner);
  if (!owner || !descriptor || typeof descriptor.value !== "function") return;
  const nativeRegister = descriptor.value;
  if (!/\{\s*\[native code\]\s*\}\s*$/.test(apply(functionToString, nativeRegister, []))) return; // a polyfill

  /**
   * The text of what a tool threw, read without running page code where possible: an own
   * `message` data property, or a thrown string/number/boolean. Null when there is none.
   * @param {unknown} error
   * @returns {string | null}
   */
  function messageOf(error) {
    let text = null;
    if (typeof error === "string") text = error;
    else if (typeof error === "number" || typeof error === "boolean") text = `${error}`;
    else if ((typeof error === "object" && error !== null) || typeof error === "function") {
      try {
        const own = getOwnPropertyDescriptor(error, "message"); // a Proxy's trap may run: its own choice
        if (own && "value" in own && typeof own.value === "string") text = own.value;
        else if (getPrototypeOf(error) === null) text = NOT_AN_ERROR; // Object.create(null)
      } catch {
        text = NOT_AN_ERROR; // a Proxy whose traps throw
      }
    }
    if (!text) return null;
    return text.length <= MAX_MESSAGE_CHARS ? text : text.slice(0, MAX_MESSAGE_CHARS);
  }

  /**
   * Tell the bridge what a call of tool `name` with `input` threw.
   * @param {unknown} name
   * @param {unknown} input
   * @param {unknown} error
   */
  function record(name, input, error) {
    if (typeof name !== "string" || port === null) return;
    const message = messageOf(error);
    if (message === null) return;
    let key;
    try {
      key = stringify(input);
    } catch {
      return;
    }
    if (typeof key !== "string" || key.length > MAX_KEY_CHARS) return;
    try {
      apply(portPost, port, [{ name, input: key, message }]);
    } catch {
      // Not cloneable cannot happen (strings); a closed port: the bridge went away.
    }
  }

  /**
   * The page's `execute`, noting what it throws (synchronously, or as a rejected native promise).
   * @param {Function} execute
   * @param {() => unknown} nameOf the tool's name as Chromium read it
   * @returns {Function}
   */
  function wrapExecute(execute, nameOf) {
    // A plain function (not a method or arrow): Chromium calls it as it would call the page's.
    /** @this {unknown} @param {unknown[]} args */
    return function (...args) {
      const input = args[0];
      let result;
      try {
        result = apply(execute, this, args);
      } catch (error) {
        record(nameOf(), input, error);
        throw error;
      }
      try {
        // Only a native promise is followed (anything else is returned as it came).
        return apply(promiseThen, result, [
          undefined,
          (/** @type {unknown} */ error) => {
            record(nameOf(), input, error);
            throw error;
          },
        ]);
      } catch {
        return result;
      }
    };
  }

  /**
   * The tool dictionary Chromium reads instead of the page's: the page's object as prototype, and
   * getters for `name` (remembered) and `execute` (wrapped) that each read the page's member once.
   * @param {object} tool
   * @returns {object}
   */
  function wrapTool(tool) {
    /** @type {unknown} */
    let name;
    const nameOf = () => name;
    return create(tool, {
      name: {
        get() {
          name = /** @type {any} */ (tool).name;
          return name;
        },
        enumerable: true,
        configurable: true,
      },
      execute: {
        get() {
          const execute = /** @type {any} */ (tool).execute;
          return typeof execute === "function" ? wrapExecute(execute, nameOf) : execute;
        },
        enumerable: true,
        configurable: true,
      },
    });
  }

  const registerTool = new ProxyCtor(nativeRegister, {
    apply(target, thisArg, args) {
      const tool = args[0];
      if ((typeof tool === "object" && tool !== null) || typeof tool === "function") args[0] = wrapTool(tool);
      return apply(target, thisArg, args);
    },
  });
  // Function.prototype.toString answers for the wrapper as for the native function, and for itself
  // as before.
  const toString = new ProxyCtor(functionToString, {
    apply(target, thisArg, args) {
      if (thisArg === registerTool) return apply(target, nativeRegister, args);
      if (thisArg === toString) return apply(target, functionToString, args);
      return apply(target, thisArg, args);
    },
  });
  const toStringDescriptor = getOwnPropertyDescriptor(Function.prototype, "toString");
  defineProperty(owner, "registerTool", { ...descriptor, value: registerTool });
  if (toStringDescriptor) defineProperty(Function.prototype, "toString", { ...toStringDescriptor, value: toString });

})();
void 0;
