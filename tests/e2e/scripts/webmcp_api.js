// Scenarios 1–4, 7, 8 run inside a page; returns what happened, so the same
// expectations hold for Chromium's native WebMCP and for the webctx polyfill.
async () => {
  const mc = document.modelContext;
  const out = {};
  let changes = 0;
  mc.addEventListener("toolchange", () => { changes += 1; });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
  const errorName = async (promise) => {
    try { await promise; return "resolved"; } catch (e) { return e instanceof Error || e instanceof DOMException ? e.name : `raw:${String(e)}`; }
  };
  const tool = (name, extra = {}) => ({ name, description: "d", execute: () => "ok", ...extra });

  // 4. toolchange before resolution; 1. duplicates.
  let changedBeforeResolve = false;
  const before = changes;
  await mc.registerTool(tool("dup")).then(() => { changedBeforeResolve = changes > before; });
  out.changedBeforeResolve = changedBeforeResolve;
  out.visibleAfterAwait = (await mc.getTools()).some((t) => t.name === "dup");
  await settle();
  const afterFirst = changes;
  out.duplicate = await errorName(mc.registerTool(tool("dup")));
  await settle();
  out.duplicateFiredToolchange = changes !== afterFirst;

  // 2. names, descriptions, schemas.
  out.names = {};
  for (const name of ["", "a b", "tool:x", "x".repeat(129)]) out.names[name.length > 20 ? "129 chars" : JSON.stringify(name)] = await errorName(mc.registerTool(tool(name)));
  out.emptyDescription = await errorName(mc.registerTool({ name: "nodesc", description: "", execute: () => 1 }));
  out.name128 = await errorName(mc.registerTool(tool("y".repeat(127) + ".")));
  const circular = { type: "object" }; circular.self = circular;
  out.circularSchema = await errorName(mc.registerTool(tool("circ", { inputSchema: circular })));
  out.stringSchema = await errorName(mc.registerTool(tool("strschema", { inputSchema: "x" })));

  // 3. abort to unregister; pre-aborted signal rejects with its reason.
  const controller = new AbortController();
  await mc.registerTool(tool("gone"), { signal: controller.signal });
  await settle();
  const beforeAbort = changes;
  controller.abort();
  await settle();
  out.abortFiredToolchange = changes - beforeAbort;
  out.goneAfterAbort = !(await mc.getTools()).some((t) => t.name === "gone");
  const pre = new AbortController(); pre.abort("r0");
  out.preAborted = await errorName(mc.registerTool(tool("pre"), { signal: pre.signal }));
  out.preAbortedRegistered = (await mc.getTools()).some((t) => t.name === "pre");
  out.reRegister = await errorName(mc.registerTool(tool("gone")));

  // getTools sorted by name.
  await mc.registerTool(tool("b_zeta")); await mc.registerTool(tool("a_alpha"));
  const names = (await mc.getTools()).map((t) => t.name);
  out.sorted = names.join(",") === [...names].sort().join(",");

  // 7. result serialisation; 8. input handling.
  const values = { obj: { a: 1 }, str: "s", num: 42, undef: undefined };
  out.results = {};
  for (const [key, value] of Object.entries(values)) {
    await mc.registerTool(tool(`r_${key}`, { execute: () => value }));
  }
  await mc.registerTool(tool("r_bigint", { execute: () => ({ x: 1n }) }));
  await mc.registerTool(tool("r_input", { execute: (input) => input }));
  const tools = await mc.getTools();
  const find = (n) => tools.find((t) => t.name === n);
  for (const key of Object.keys(values)) out.results[key] = await mc.executeTool(find(`r_${key}`), {});
  out.results.bigint = await errorName(mc.executeTool(find("r_bigint"), {}));
  out.inputOmitted = await mc.executeTool(find("r_input"));
  out.inputNull = await errorName(mc.executeTool(find("r_input"), null));
  return out;
}
