// sdk_client.mjs drives `aoi mcp` with the official MCP TypeScript SDK
// client, the way Claude Code or Cursor would: it launches the server over
// stdio, lists tools and resources, runs the calls of a plan, reads the
// resources, and prints one JSON document with everything it saw.
//
// usage: node sdk_client.mjs AOI_BINARY DATA_DIR PLAN_JSON_FILE
// plan:  {"calls": [{"name": "aoi_discover", "arguments": {}}, …]}

import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, dataDir, planFile] = process.argv.slice(2);
if (!bin || !dataDir || !planFile) {
  console.error("usage: node sdk_client.mjs AOI_BINARY DATA_DIR PLAN_JSON_FILE");
  process.exit(2);
}
const plan = JSON.parse(readFileSync(planFile, "utf8"));

const transport = new StdioClientTransport({
  command: bin,
  args: ["mcp", "--data-dir", dataDir],
  stderr: "inherit",
});
const client = new Client({ name: "aoi-sdk-test", version: "1.0.0" });
const text = (content) =>
  (content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

const out = { server: null, instructions: "", tools: [], calls: [], resources: [] };
try {
  await client.connect(transport);
  out.server = client.getServerVersion();
  out.instructions = client.getInstructions() ?? "";
  const { tools } = await client.listTools();
  out.tools = tools.map((t) => ({ name: t.name, description: t.description, required: t.inputSchema?.required ?? [] }));
  for (const call of plan.calls ?? []) {
    try {
      const res = await client.callTool({ name: call.name, arguments: call.arguments ?? {} });
      out.calls.push({ name: call.name, isError: res.isError === true, text: text(res.content) });
    } catch (err) {
      // A protocol error: the Go test fails on these.
      out.calls.push({ name: call.name, protocolError: String(err?.message ?? err) });
    }
  }
  const { resources } = await client.listResources();
  for (const r of resources) {
    try {
      const res = await client.readResource({ uri: r.uri });
      const c = res.contents[0] ?? {};
      out.resources.push({ uri: r.uri, mimeType: c.mimeType, text: c.text });
    } catch (err) {
      out.resources.push({ uri: r.uri, error: String(err?.message ?? err) });
    }
  }
} finally {
  await client.close();
}
process.stdout.write(JSON.stringify(out) + "\n");
