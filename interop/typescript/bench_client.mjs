// One agent's client for bench/mcp_overhead.py, with the official TypeScript MCP SDK
// (the client Claude Code and DeepChat embed): a handshake-era session over streamable
// HTTP. It speaks the benchmark's line protocol on stdin/stdout, as the Python clients do
// (app/benchmarks/mcp_overhead.py): "ready" after the warm-up, a "go" line to start
// (and before each call when the agents call together), "done" after each such call,
// then one JSON line with every call's figures.
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, calls, agentNo, together, warmUp, ...queries] = process.argv.slice(2);
const token = process.env.TAPEMIND_BENCH_TOKEN;
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const nextLine = async () => (await lines.next()).value;

let hostMs = NaN; // the host's Server-Timing of the last answer
const timedFetch = async (input, init) => {
  const response = await fetch(input, init);
  const timing = response.headers.get("server-timing") ?? "";
  const found = /(?:^|,)\s*host;dur=([0-9.]+)/.exec(timing);
  if (found) hostMs = Number(found[1]);
  return response;
};

const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
  fetch: timedFetch,
});
const client = new Client({ name: "tapemind-bench", version: "1" });
await client.connect(transport);

const query = (n) => queries[(n + Number(agentNo)) % queries.length];
const engineMs = (result) => {
  const took = result?._meta?.["tapemind/engine_ms"];
  if (result.isError || took === undefined) {
    throw new Error(`context failed: ${JSON.stringify(result.content?.[0])}`);
  }
  return Number(took);
};
for (let n = 0; n < Number(warmUp); n++) {
  engineMs(await client.callTool({ name: "context", arguments: { query: query(n) } }));
}
console.log("ready");
await nextLine();

const rtt = [], engine = [], host = [];
const cpuStarted = process.cpuUsage();
for (let n = 0; n < Number(calls); n++) {
  if (together === "1") await nextLine();
  hostMs = NaN;
  const started = performance.now();
  const result = await client.callTool({
    name: "context",
    arguments: { thread: `t${n % 5}`, query: query(n) },
  });
  rtt.push(performance.now() - started);
  host.push(hostMs);
  if (together === "1") console.log("done");
  engine.push(engineMs(result));
}
const cpu = process.cpuUsage(cpuStarted);
await client.close();
// NaN is not JSON: a missing Server-Timing travels as null.
const report = { rtt, engine, host: host.map((h) => (Number.isNaN(h) ? null : h)),
  cpu_s: (cpu.user + cpu.system) / 1e6 };
// Exit once the write is flushed: exiting at once cuts a piped stdout at 64 KiB.
process.stdout.write(JSON.stringify(report) + "\n", () => process.exit(0));
