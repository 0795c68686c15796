// Tool calls through the official TypeScript MCP client (the one Claude Code and DeepChat
// embed), for tests/mcp/test_typescript_client.py: a handshake-era session over streamable
// HTTP with the agent's bearer token (TAPEMIND_TOKEN).
//
//   node calls.mjs URL < calls.json
//
// stdin: a JSON array of {name, arguments}. stdout: one JSON object, {protocolVersion,
// tools: [{name, inputSchema}], results: [{isError, text, structured}]}, or {error}
// when the session could not start (a wrong token) or a call broke the protocol.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const calls = JSON.parse(Buffer.concat(chunks).toString("utf8") || "[]");

const transport = new StreamableHTTPClientTransport(new URL(`${process.argv[2]}/mcp`), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.TAPEMIND_TOKEN ?? ""}` } },
});
const client = new Client({ name: "tapemind-interop", version: "1" });
let out;
try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const results = [];
  for (const call of calls) {
    const result = await client.callTool(call);
    results.push({
      isError: Boolean(result.isError),
      text: result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n"),
      structured: result.structuredContent ?? null,
    });
  }
  out = {
    protocolVersion: transport.protocolVersion ?? null,
    tools: tools.map(({ name, inputSchema }) => ({ name, inputSchema })),
    results,
  };
} catch (error) {
  out = { error: String(error?.message ?? error) };
}
await client.close().catch(() => {});
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
