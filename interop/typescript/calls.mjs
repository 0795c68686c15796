// Tool calls through the official TypeScript MCP client (the one Claude Code and DeepChat
// embed), for tests/mcp/test_typescript_client.py: a handshake-era session, over streamable
// HTTP with the agent's bearer token (TAPEMIND_TOKEN), or over stdio with a server it
// launches itself (as Claude Code launches `tapemind mcp --agent A`).
//
//   node calls.mjs URL < calls.json
//   node calls.mjs stdio COMMAND [ARG...] < calls.json
//
// stdin: a JSON array of {name, arguments} (tool calls) or {method, params} (client methods
// such as listPrompts, getPrompt, listResources, readResource). stdout: one JSON object,
// {server, protocolVersion, capabilities, tools: [{name, inputSchema}], results: [{isError,
// text, structured} | {result} | {rpcError}]}, or {error} when the session could not start
// (a wrong token) or a tool call broke the protocol.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const calls = JSON.parse(Buffer.concat(chunks).toString("utf8") || "[]");

const [where, ...command] = process.argv.slice(2);
const transport =
  where === "stdio"
    ? new StdioClientTransport({ command: command[0], args: command.slice(1), env: process.env })
    : new StreamableHTTPClientTransport(new URL(`${where}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${process.env.TAPEMIND_TOKEN ?? ""}` } },
      });
const client = new Client({ name: "tapemind-interop", version: "1" });
let out;
try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const results = [];
  for (const call of calls) {
    if (call.method) {
      // A JSON-RPC error is the answer under test here, not a broken session.
      try {
        results.push({ result: await client[call.method](call.params) });
      } catch (error) {
        results.push({ rpcError: { code: error?.code ?? null, message: String(error?.message) } });
      }
      continue;
    }
    const result = await client.callTool(call);
    results.push({
      isError: Boolean(result.isError),
      text: result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n"),
      structured: result.structuredContent ?? null,
    });
  }
  out = {
    server: client.getServerVersion()?.name ?? null,
    protocolVersion: transport.protocolVersion ?? null, // HTTP only: stdio keeps none
    capabilities: client.getServerCapabilities() ?? null,
    tools: tools.map(({ name, inputSchema }) => ({ name, inputSchema })),
    results,
  };
} catch (error) {
  out = { error: String(error?.message ?? error) };
}
await client.close().catch(() => {});
// Exit once the write is flushed: exiting at once cuts a piped stdout at 64 KiB.
process.stdout.write(JSON.stringify(out) + "\n", () => process.exit(0));
