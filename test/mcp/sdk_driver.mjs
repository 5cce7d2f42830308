// sdk_driver.mjs drives several `aoi mcp` servers at once with the official
// MCP TypeScript SDK client, one per named agent, so a Go test can play a
// planner, an orchestrator and a worker in turn. It reads one JSON command
// per line on stdin and answers one JSON line per command on stdout:
//
//   {"client": "worker", "name": "aoi_check_messages", "arguments": {…}}
//   → {"isError": false, "text": "…", "structured": {…}}
//
// A protocol error is answered as {"protocolError": "…"} (the Go test fails
// on it: tools must answer every problem as a tool error).
//
// usage: node sdk_driver.mjs AOI_BINARY NAME=DATA_DIR…

import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, ...pairs] = process.argv.slice(2);
if (!bin || pairs.length === 0) {
  console.error("usage: node sdk_driver.mjs AOI_BINARY NAME=DATA_DIR…");
  process.exit(2);
}

const clients = {};
for (const pair of pairs) {
  const [name, dataDir] = pair.split("=", 2);
  const transport = new StdioClientTransport({ command: bin, args: ["mcp", "--data-dir", dataDir], stderr: "inherit" });
  const client = new Client({ name: `aoi-sdk-${name}`, version: "1.0.0" });
  await client.connect(transport);
  clients[name] = client;
}
process.stdout.write(JSON.stringify({ ready: Object.keys(clients) }) + "\n");

const text = (content) =>
  (content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  let answer;
  try {
    const cmd = JSON.parse(line);
    const client = clients[cmd.client];
    if (!client) throw new Error(`no client named ${cmd.client}`);
    const res = await client.callTool({ name: cmd.name, arguments: cmd.arguments ?? {} });
    answer = { isError: res.isError === true, text: text(res.content), structured: res.structuredContent ?? null };
  } catch (err) {
    answer = { protocolError: String(err?.message ?? err) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
for (const client of Object.values(clients)) await client.close();
