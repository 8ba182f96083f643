import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseStateLog } from "../src/state/log.ts";
import { captureCli, openaiRun } from "./support/run-cli.ts";

let base: string;
let home: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "coding-agent-cost-"));
  home = await mkdtemp(join(tmpdir(), "coding-agent-home-"));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

const env = () => ({ CODING_AGENT_HOME: home, PATH: process.env.PATH });
const cli = (argv: string[]) => captureCli(argv, env());

/** A fake-model turn that echoes and reports a million input and half a million output tokens. */
const usage = { inputTokens: 1_000_000, outputTokens: 500_000 };
const echo = (n: number) => ({
  action: { type: "tool_call", tool: "echo", input: { text: `第 ${n} 次` } },
  usage,
});
const finish = { action: { type: "finish", summary: "好了" }, usage };
/** $1 and $2 per million: each turn above costs $2. */
const FAKE_PRICE = { fake: { inputPerMTok: 1, outputPerMTok: 2 } };

async function fakeRun(turns: unknown[], more: string[], pricing: unknown = FAKE_PRICE) {
  const script = join(base, "script.json");
  const prices = join(base, "pricing.json");
  await writeFile(script, JSON.stringify(turns));
  await writeFile(prices, typeof pricing === "string" ? pricing : JSON.stringify(pricing));
  return cli([
    "run",
    "数一数",
    "--script",
    script,
    "--workspace",
    base,
    "--json",
    "--pricing",
    prices,
    ...more,
  ]);
}

async function runFolders() {
  return readdir(join(home, "runs")).catch(() => [] as string[]);
}

describe("coding-agent run --pricing", () => {
  it("prices the fake model as `fake`: the result carries usage and costUsd", async () => {
    const { code, result } = await fakeRun([echo(1), finish], []);
    expect(code).toBe(0);
    expect(result).toMatchObject({
      status: "completed",
      usage: { inputTokens: 2_000_000, outputTokens: 1_000_000 },
      costUsd: 4,
    });
  });

  it("reports costUsd null for a model without a price, and says so in the text output", async () => {
    const script = join(base, "script.json");
    await writeFile(script, JSON.stringify([finish]));
    const json = await cli(["run", "数一数", "--script", script, "--workspace", base, "--json"]);
    expect(json.result).toMatchObject({ status: "completed", costUsd: null });
    const text = await cli(["run", "数一数", "--script", script, "--workspace", base]);
    expect(text.stdout).toContain("成本：未知");
  });

  it("rejects a pricing file with a bad field, naming the file and the field (exit 2)", async () => {
    const bad = await fakeRun([finish], [], { fake: { inputPerMTok: "1", outputPerMTok: 2 } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("价格文件");
    expect(bad.stderr).toContain("fake.inputPerMTok");
    const negative = await fakeRun([finish], [], { fake: { inputPerMTok: 1, outputPerMTok: -2 } });
    expect(negative.code).toBe(2);
    expect(negative.stderr).toContain("fake.outputPerMTok");
    const extra = await fakeRun([finish], [], {
      fake: { inputPerMTok: 1, outputPerMTok: 2, x: 1 },
    });
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain("x");
    const torn = await fakeRun([finish], [], '{"fake": {"inputPerMTok": 1,');
    expect(torn.code).toBe(2);
    expect(torn.stderr).toContain("不是合法 JSON");
    expect(await runFolders()).toEqual([]);
  });
});

describe("coding-agent run --max-cost-usd", () => {
  it("stops budget_exceeded, code max_cost, after the step that reaches the budget (exit 3)", async () => {
    const { code, result } = await fakeRun(
      [echo(1), echo(2), echo(3), finish],
      ["--max-cost-usd", "4"],
    );
    expect(code).toBe(3);
    expect(result).toMatchObject({
      status: "budget_exceeded",
      code: "max_cost",
      steps: 2,
      toolCalls: 2,
      costUsd: 4,
    });
    expect(result.reason).toContain("$4.0000");
  });

  it("is a usage error before any model call when the model has no price", async () => {
    let requests = 0;
    const server = createServer((_request, response) => {
      requests += 1;
      response.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const { code, stderr } = await captureCli(
        [...openaiRun("数一数", url, "--workspace", base, "--max-cost-usd", "1")],
        { ...env(), OPENAI_API_KEY: "sk-test" },
      );
      expect(code).toBe(2);
      expect(stderr).toContain("--max-cost-usd 需要模型 m 的价格");
      expect(requests).toBe(0);
      expect(await runFolders()).toEqual([]);
    } finally {
      server.close();
    }
  });

  it("rejects a budget that is not a positive number (exit 2)", async () => {
    for (const value of ["0", "-1", "abc", "1e3"]) {
      const { code } = await fakeRun([finish], ["--max-cost-usd", value]);
      expect(code, value).toBe(2);
    }
  });
});

describe("cost and the state log", () => {
  it("records the price in run_started and each reply's usage; a resume counts the spent cost again", async () => {
    const first = await fakeRun([echo(1), echo(2), echo(3), finish], ["--max-cost-usd", "6"]);
    const file = join(home, "runs", first.result.runId, "state.jsonl");
    const read = parseStateLog(await readFile(file, "utf8"));
    if (!read.ok) throw new Error(read.message);
    const [started] = read.events;
    expect(started).toMatchObject({
      type: "run_started",
      options: { price: { inputPerMTok: 1, outputPerMTok: 2 }, maxCostUsd: 6 },
    });
    expect(read.events.filter((event) => event.type === "model_reply")[0]).toMatchObject({
      usage,
    });
    // A crash after the second reply's tool result: the resume must count $4 already spent.
    let replies = 0;
    const kept: string[] = [];
    for (const line of (await readFile(file, "utf8")).trimEnd().split("\n")) {
      const event = JSON.parse(line);
      if (event.type === "model_reply") replies += 1;
      if (replies > 2 || event.type === "run_finished") break;
      kept.push(line);
    }
    await writeFile(file, `${kept.join("\n")}\n`);
    // The pricing file changes after the run started: the resume keeps the recorded price.
    await writeFile(
      join(base, "pricing.json"),
      JSON.stringify({ fake: { inputPerMTok: 0, outputPerMTok: 0 } }),
    );
    const resumed = await cli(["resume", first.result.runId, "--json"]);
    expect(resumed.result).toMatchObject({
      status: "budget_exceeded",
      code: "max_cost",
      steps: 3,
      costUsd: 6,
    });
  });
});
