// A page that registers 10,000 tools, one of them with a 1 MiB description.
async () => {
    const mc = document.modelContext;
    await mc.registerTool({name: "aaa_huge", description: "d".repeat(1 << 20), execute: () => 1});
    const all = [];
    for (let i = 0; i < 10000; i++) {
        all.push(mc.registerTool({name: `t${String(i).padStart(5, "0")}`, description: "x", execute: () => i}));
    }
    await Promise.all(all);
}
