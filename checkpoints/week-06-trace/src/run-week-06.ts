import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCliCaptured } from "@coding-agent/cli";
import {
  type CliRun,
  COST_BUDGET_USD,
  HOSTILE_TEXT,
  PLANTED_SECRET,
  type Week06Run,
} from "./week-06.ts";

/** A repository whose `sum` subtracts: one of its two `node --test` tests fails until it adds. */
const REPO_FILES: Readonly<Record<string, string>> = {
  "package.json": '{ "name": "sum", "type": "module", "scripts": { "test": "node --test" } }\n',
  "src/sum.js": "export function sum(a, b) {\n  return a - b;\n}\n",
  "test/sum.test.js": [
    'import assert from "node:assert/strict";',
    'import { test } from "node:test";',
    'import { sum } from "../src/sum.js";',
    'test("adds", () => assert.equal(sum(2, 3), 5));',
    'test("zero", () => assert.equal(sum(0, 0), 0));',
    "",
  ].join("\n"),
};

/** Each turn reports usage, so the fake model (priced as `fake`) costs something. */
const turn = (action: unknown, inputTokens: number, outputTokens: number) => ({
  action,
  usage: { inputTokens, outputTokens },
});
const call = (tool: string, input: Record<string, unknown>) => ({ type: "tool_call", tool, input });

/** Tests fail, the fix, tests pass, a hostile echo holding a key, then the finish. */
export const FIX_SCRIPT = [
  turn(call("run_tests", {}), 1_000, 100),
  turn(call("edit_file", { path: "src/sum.js", old: "a - b", new: "a + b" }), 1_200, 80),
  turn(call("run_tests", {}), 1_400, 60),
  turn(call("echo", { text: `${HOSTILE_TEXT} ${PLANTED_SECRET}` }), 1_500, 50),
  turn({ type: "finish", summary: "sum 改为相加，测试全部通过" }, 1_600, 20),
];

/** USD per million tokens of the fake model: $0.0045 for the first step. */
export const FAKE_PRICING = { fake: { inputPerMTok: 3, outputPerMTok: 15 } };

/**
 * The checkpoint's real runs of the capstone, in one temporary folder (removed afterwards)
 * with its own `$CODING_AGENT_HOME`: the fix traced and exported to a loopback OTLP
 * collector, its replay, the fix again under a cost budget and its replay, and the HTML
 * report of the first run.
 */
export async function runWeek06(): Promise<Week06Run> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "week-06-trace-")));
  const home = join(base, "home");
  const collector = await startCollector();
  const env = { CODING_AGENT_HOME: home, PATH: process.env.PATH };
  try {
    const script = join(base, "script.json");
    const pricing = join(base, "pricing.json");
    await writeFile(script, JSON.stringify(FIX_SCRIPT));
    await writeFile(pricing, JSON.stringify(FAKE_PRICING));
    const fix = async (repo: string, flags: string[], extra: Record<string, string> = {}) => {
      const workspace = await writeRepo(join(base, repo));
      const argv = ["run", "修复失败的测试", "--script", script, "--workspace", workspace];
      const options = ["--approval", "auto", "--sandbox", "none", "--pricing", pricing, "--json"];
      return cli([...argv, ...options, ...flags], { ...env, ...extra });
    };
    const traced = await fix("traced", [], { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint });
    const runId = runIdOf(traced);
    const costStop = await fix("cost", ["--max-cost-usd", String(COST_BUDGET_USD)]);
    const page = join(base, "report.html");
    const report = await cli(["trace", runId, "--html", page], env);
    return {
      traced,
      traceText: await readFile(join(home, "runs", runId, "trace.jsonl"), "utf8").catch(() => ""),
      otlpBodies: collector.bodies,
      replayed: await cli(["replay", runId, "--json"], env),
      costStop,
      costReplayed: await cli(["replay", runIdOf(costStop), "--json"], env),
      report,
      page: await readFile(page, "utf8").catch(() => ""),
    };
  } finally {
    await collector.close();
    await rm(base, { recursive: true, force: true });
  }
}

async function writeRepo(dir: string): Promise<string> {
  for (const [path, text] of Object.entries(REPO_FILES)) {
    await mkdir(join(dir, path, ".."), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

function runIdOf(run: CliRun): string {
  try {
    return String((JSON.parse(run.stdout) as { runId?: unknown }).runId ?? "none");
  } catch {
    return "none";
  }
}

/** `coding-agent <argv>` in this process, with exactly `env`. */
const cli = (argv: string[], env: Record<string, string | undefined>): Promise<CliRun> =>
  runCliCaptured(argv, env);

/** A loopback OTLP/HTTP collector keeping every request body (OTLP/JSON, the exporter's default). */
async function startCollector() {
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => {
      if (request.url === "/v1/traces") bodies.push(body);
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
