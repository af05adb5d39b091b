// 1,000 toolchange events a second for one second: register and abort a tool every 2 ms.
() => {
  const mc = document.modelContext;
  let i = 0;
  window.flood = setInterval(() => {
    const c = new AbortController();
    mc.registerTool({ name: `flood_${i++}`, description: "f", execute: () => 1 }, { signal: c.signal })
      .then(() => c.abort());
  }, 2);
  setTimeout(() => clearInterval(window.flood), 1000);
}
