// A second MCP implementation for the e2e tests: the official TypeScript SDK's
// client (@modelcontextprotocol/sdk, a devDependency in package.json), driven step by step by
// tests/e2e/ts_client_harness.py so a Python test can act on the browser between steps.
//
//   node driver.mjs http URL             Streamable HTTP straight to a provider; the bearer token
//                                        comes from the environment variable WEBCTX_TS_TOKEN
//   node driver.mjs stdio COMMAND ARG…   the SDK spawns COMMAND (`webctx mcp`) with this process's
//                                        whole environment (HOME, CONTEXT_PROVIDERS_DIR, …)
//
// The client connects in the SDK's default protocol version (it offers LATEST_PROTOCOL_VERSION) and
// then reads one JSON command per line on stdin; every stdout line is one JSON object:
//
//   {"event": "connected", "protocolVersion": …, "requested": …, "serverInfo": …,
//    "capabilities": …, "instructions": …, "serverPid": <stdio: the spawned server's pid>}
//                                                                   once, after `initialize`
//   {"event": "list_changed", "at": <Date.now()>}                   notifications/tools/list_changed
//   {"event": "resources_list_changed", "at": <Date.now()>}         notifications/resources/list_changed
//   {"event": "transport_error", "message": …} / {"event": "closed"}
//   {"id": N, "ok": true, "result": {…}, "ms": …}                   the reply to command N
//   {"id": N, "ok": false, "error": {"name", "message", "code"?, "data"?}, "ms": …}
//
// Commands (processed concurrently; each gets exactly one reply):
//   {"id": N, "op": "list"}                                   one tools/list (never retried here,
//                                                             so a test can list exactly once)
//   {"id": N, "op": "call", "name": …, "arguments": {…}, "key"?: K, "timeout_ms"?: …}
//                                                             tools/call; `key` makes it abortable
//   {"id": N, "op": "resources"}                              one resources/list
//   {"id": N, "op": "read", "uri": …}                         resources/read of `uri`
//   {"id": N, "op": "abort", "key": K}                        abort call K through the AbortSignal
//                                                             given to callTool (the SDK sends
//                                                             notifications/cancelled)
//   {"id": N, "op": "close"}                                  close the client and exit 0
//
// A failed connect prints {"event": "connect_failed", …} and exits 1. stdin closing closes the client.

import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  LATEST_PROTOCOL_VERSION,
  McpError,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const DEFAULT_TIMEOUT_MS = 15_000;

/** @param {Record<string, unknown>} line */
function emit(line) {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/**
 * The JSON shape of an error a step ended with.
 * @param {unknown} error
 * @returns {{name: string, message: string, code?: number, data?: unknown}}
 */
function describe(error) {
  if (error instanceof McpError) {
    return { name: "McpError", message: error.message, code: error.code, data: error.data };
  }
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: typeof error, message: String(error) };
}

/**
 * The transport named by argv.
 * @param {string[]} args
 * @returns {import("@modelcontextprotocol/sdk/shared/transport.js").Transport}
 */
function transportFrom(args) {
  const [kind, ...rest] = args;
  if (kind === "http" && rest.length === 1) {
    const token = process.env.WEBCTX_TS_TOKEN;
    if (!token) throw new Error("driver.mjs http: set WEBCTX_TS_TOKEN to the provider's bearer token");
    return new StreamableHTTPClientTransport(new URL(rest[0]), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
  }
  if (kind === "stdio" && rest.length >= 1) {
    /** @type {Record<string, string>} */
    const env = {};
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
    return new StdioClientTransport({ command: rest[0], args: rest.slice(1), env, stderr: "inherit" });
  }
  throw new Error("usage: driver.mjs http URL | driver.mjs stdio COMMAND [ARG…]");
}

/**
 * Record the protocol version the server answered `initialize` with: the SDK keeps it private (it
 * only hands it to HTTP transports), so look at the messages the transport delivers. Protocol.connect
 * sets `onmessage` before it calls `start`, so wrapping `start` sees the handler it installed.
 * @param {import("@modelcontextprotocol/sdk/shared/transport.js").Transport} transport
 * @param {{protocolVersion?: string}} seen
 */
function recordNegotiatedVersion(transport, seen) {
  const start = transport.start.bind(transport);
  transport.start = async () => {
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const result = /** @type {{result?: {protocolVersion?: unknown}}} */ (message).result;
      if (seen.protocolVersion === undefined && typeof result?.protocolVersion === "string") {
        seen.protocolVersion = result.protocolVersion;
      }
      deliver?.(message, extra);
    };
    return start();
  };
}

async function main() {
  const transport = transportFrom(process.argv.slice(2));
  /** @type {{protocolVersion?: string}} */
  const seen = {};
  recordNegotiatedVersion(transport, seen);
  const client = new Client({ name: "webctx-ts-sdk-test", version: "1.0.0" });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    emit({ event: "list_changed", at: Date.now() });
  });
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    emit({ event: "resources_list_changed", at: Date.now() });
  });
  try {
    await client.connect(transport);
  } catch (error) {
    emit({ event: "connect_failed", error: describe(error) });
    process.exit(1);
  }
  // Set after connect: Protocol.connect installs its own handlers and calls any already set.
  const { onclose, onerror } = transport;
  transport.onclose = () => {
    onclose?.();
    emit({ event: "closed" });
  };
  transport.onerror = (error) => {
    onerror?.(error);
    emit({ event: "transport_error", message: String(error?.message ?? error) });
  };
  emit({
    event: "connected",
    requested: LATEST_PROTOCOL_VERSION,
    protocolVersion: seen.protocolVersion ?? null,
    serverInfo: client.getServerVersion() ?? null,
    capabilities: client.getServerCapabilities() ?? null,
    instructions: client.getInstructions() ?? null,
    serverPid: transport instanceof StdioClientTransport ? transport.pid : null,
  });

  /** @type {Map<string, AbortController>} */
  const abortable = new Map();

  /**
   * Run one command and return its result.
   * @param {{op: string, name?: string, arguments?: Record<string, unknown>, key?: string, uri?: string, timeout_ms?: number}} command
   * @returns {Promise<unknown>}
   */
  async function run(command) {
    const timeout = command.timeout_ms ?? DEFAULT_TIMEOUT_MS;
    switch (command.op) {
      case "list":
        return await client.listTools(undefined, { timeout });
      case "resources":
        return await client.listResources(undefined, { timeout });
      case "read":
        return await client.readResource({ uri: String(command.uri) }, { timeout });
      case "call": {
        const controller = new AbortController();
        if (command.key !== undefined) abortable.set(command.key, controller);
        try {
          return await client.callTool(
            { name: String(command.name), arguments: command.arguments ?? {} },
            undefined,
            { signal: controller.signal, timeout },
          );
        } finally {
          if (command.key !== undefined) abortable.delete(command.key);
        }
      }
      case "abort": {
        const controller = abortable.get(String(command.key));
        if (controller === undefined) throw new Error(`no running call with key ${command.key}`);
        controller.abort();
        return {};
      }
      case "close":
        await client.close();
        return {};
      default:
        throw new Error(`unknown op ${command.op}`);
    }
  }

  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const text of lines) {
    if (!text.trim()) continue;
    const command = JSON.parse(text);
    const started = performance.now();
    run(command).then(
      (result) => {
        emit({ id: command.id, ok: true, result, ms: performance.now() - started });
        if (command.op === "close") process.exit(0);
      },
      (error) => emit({ id: command.id, ok: false, error: describe(error), ms: performance.now() - started }),
    );
  }
  await client.close();
  process.exit(0);
}

await main();
