// A page (and a frame inside it) posting fake and malformed messages on the webctx bridge channel.
async () => {
    const send = (data) => window.postMessage(data, "*");
    const base = {channel: "webctx.webmcp", dir: "to-ext"};
    for (const junk of [null, "x", 42, [], {channel: "webctx.webmcp"}, {...base, kind: "tools"},
                        {...base, kind: "tools", tools: "no"}, {...base, kind: "result", callId: "h-1", ok: true, text: 5},
                        {...base, kind: "tools", tools: new Array(100000).fill({name: "x", description: "y"})},
                        {...base, kind: "result", callId: "h-999999", ok: true, text: "forged"}]) send(junk);
    send({...base, kind: "tools", tools: [{name: "bad name!", description: "x"}, {name: "ok_but_fake"}]});
    send({channel: "webctx.webmcp", dir: "to-page", kind: "call", callId: "c1", name: "real_tool", input: {}});
    send("y".repeat(5 << 20));
    // A frame speaking to its parent: event.source is the frame, not the window.
    const frame = document.createElement("iframe");
    frame.srcdoc = "<script>parent.postMessage({channel: 'webctx.webmcp', dir: 'to-ext', kind: 'tools'," +
                   " tools: [{name: 'from_frame', description: 'spoof'}]}, '*')<\/script>";
    document.body.append(frame);
    await new Promise((resolve) => frame.onload = resolve);
}
