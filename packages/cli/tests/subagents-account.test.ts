/**
 * One accountant for a parent's and its children's spending (lesson 39): each child's spend
 * is charged to the parent's run account as the child ends, and the parent's guard counts it
 * with the parent's own — at its next model call (steps, tokens, cost) and at its next tool
 * call (tool calls). A replay charges its account from the log where the run charged it, so it
 * stops at the same step with the same code and reason. Through the real CLI, the children in
 * temporary copies of a folder that is no repository.
 */
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCliCaptured } from "../src/cli.ts";
import { useSubagentFolders } from "./support/subagent-folders.ts";

// Children in real copies: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 60_000 };

let base: string;
let ws: string;
let temp: string;
useSubagentFolders("coding-agent-account-", async (made) => {
  ({ base, ws, temp } = made);
  await writeFile(join(ws, "a.txt"), "a\n");
  await writeFile(join(ws, "b.txt"), "b\n");
});

const call = (tool: string, input: unknown) => ({ type: "tool_call", tool, input });
const spawn = (goal: string) => call("spawn_agent", { goal });
const echo = (text: string) => call("echo", { text });
const finish = (summary = "好了") => ({ type: "finish", summary });
/** A turn of the child whose goal is `agent`. */
const turn = (agent: string, action: unknown, more: Record<string, unknown> = {}) => ({
  agent,
  action,
  ...more,
});
/** `n` input tokens: at the test price, $1 per million. */
const tokens = (n: number) => ({ usage: { inputTokens: n, outputTokens: 0 } });

async function cliOf(argv: string[]) {
  const run = await runCliCaptured(argv, process.env, new AbortController().signal);
  const result = run.stdout === "" ? undefined : JSON.parse(run.stdout);
  return { code: run.exitCode, stderr: run.stderr, result };
}

/** The parent's run of `turns` with `--subagents 1`, $1 per million input tokens. */
async function run(turns: unknown[], flags: string[]) {
  const script = join(base, "script.json");
  await writeFile(script, JSON.stringify(turns));
  const pricing = join(base, "pricing.json");
  await writeFile(pricing, JSON.stringify({ fake: { inputPerMTok: 1, outputPerMTok: 0 } }));
  const argv = ["run", "总目标", "--script", script, "--workspace", ws, "--approval", "auto"];
  const more = ["--json", "--subagents", "1", "--pricing", pricing];
  return cliOf([...argv, ...more, ...flags]);
}

/** What a stop is: its exit code and the result's figures and reason. */
const stopOf = (ran: { code: number; result: Record<string, unknown> }) => {
  const { status, code, reason, steps, toolCalls, usage, costUsd, subagents } = ran.result;
  return { exit: ran.code, status, code, reason, steps, toolCalls, usage, costUsd, subagents };
};

/** Runs `turns`, expects the stop, then replays the run and expects the very same stop. */
async function expectStopAndReplay(
  turns: unknown[],
  flags: string[],
  expected: { code: string; reason: string; steps: number; toolCalls: number },
) {
  const ran = await run(turns, flags);
  expect(ran.result, ran.stderr).toMatchObject({ status: "budget_exceeded", ...expected });
  expect(ran.code, ran.stderr).toBe(3);
  const replayed = await cliOf(["replay", ran.result.runId, "--json"]);
  expect(replayed.result, replayed.stderr).toBeDefined();
  expect(stopOf(replayed)).toEqual(stopOf(ran));
  expect(replayed.stderr).not.toContain("子 Agent #1 开始");
  expect(await readdir(temp)).toEqual([]);
  return ran.result;
}

describe("children's spend stops the parent at its next model call", HANG_GUARD, () => {
  it("steps: the parent's 2 and the child's 4 reach --max-steps 6", async () => {
    // 6 steps, the parent used 1 and keeps 1: the child gets 4 and uses them all.
    const turns = [
      { action: spawn("子一") },
      { action: echo("父运行读了结果") },
      { action: echo("不会到这里") },
      ...["1", "2", "3", "4", "5"].map((n) => turn("子一", echo(n))),
    ];
    const result = await expectStopAndReplay(turns, ["--max-steps", "6"], {
      code: "max_steps",
      reason: "已用 6 步（其中子 Agent 4 步），达到预算 6",
      steps: 2,
      toolCalls: 2,
    });
    expect(result.subagents).toMatchObject({ runs: 1, steps: 4 });
  });

  it("tokens: the parent's 10 and the child's 90 reach --max-tokens 100 before its second call", async () => {
    // The parent spent 10 of 100: the child gets 90, and stops itself after two replies of 45.
    const turns = [
      { action: spawn("子一"), ...tokens(10) },
      { action: echo("不会到这里"), ...tokens(10) },
      turn("子一", echo("1"), tokens(45)),
      turn("子一", echo("2"), tokens(45)),
      turn("子一", echo("3"), tokens(45)),
    ];
    const result = await expectStopAndReplay(turns, ["--max-tokens", "100"], {
      code: "max_tokens",
      reason: "已用 100 个 token（其中子 Agent 90 个），达到预算 100",
      steps: 1,
      toolCalls: 1,
    });
    expect(result.subagents).toMatchObject({ runs: 1, usage: { inputTokens: 90 } });
  });

  it("cost: the parent's $1 and the child's $2 reach --max-cost-usd 3 before its second call", async () => {
    const million = tokens(1_000_000);
    const turns = [
      { action: spawn("子一"), ...million },
      { action: echo("不会到这里"), ...million },
      turn("子一", echo("1"), million),
      turn("子一", echo("2"), million),
      turn("子一", echo("3"), million),
    ];
    const result = await expectStopAndReplay(turns, ["--max-cost-usd", "3"], {
      code: "max_cost",
      reason: "已花费 $3.0000（其中子 Agent $2.0000），达到成本预算 $3.0000",
      steps: 1,
      toolCalls: 1,
    });
    // The --json figures are the whole run's, the children's part named apart.
    expect(result).toMatchObject({ costUsd: 3, subagents: { runs: 1, costUsd: 2 } });
  });
});

describe("children's spend stops the parent at its next tool call", HANG_GUARD, () => {
  it("tool calls: the reply's call after the child's is not run once both reach --max-tool-calls", async () => {
    // 4 calls: the spawn_agent call and 1 kept for the parent, the child gets 2 and uses them;
    // the parent's first echo makes 1 + 1 + 2 = 4, so its second is not run.
    const turns = [
      { actions: [spawn("子一"), echo("父一"), echo("父二")] },
      { action: finish("不会到这里") },
      ...["1", "2", "3"].map((n) => turn("子一", echo(n))),
    ];
    const reason = "已执行 4 次工具（其中子 Agent 2 次），达到预算 4";
    const result = await expectStopAndReplay(turns, ["--max-tool-calls", "4"], {
      code: "max_tool_calls",
      reason,
      steps: 1,
      toolCalls: 2,
    });
    const answers = result.messages.filter((message: { role: string }) => message.role === "tool");
    expect(answers.at(-1)).toMatchObject({
      tool: "echo",
      ok: false,
      error: { code: "max_tool_calls", message: `未执行：${reason}` },
    });
  });

  it("reads started beside a spawn_agent call ran before its child ended: the replay runs them too", async () => {
    // The child's first call sleeps, so it ends long after the reply's two reads have started:
    // neither read is counted against the child's 2 calls, and both run. The next call stops.
    const turns = [
      {
        actions: [
          spawn("子一"),
          call("read_file", { path: "a.txt" }),
          call("read_file", { path: "b.txt" }),
        ],
      },
      { action: echo("不会执行") },
      turn("子一", call("sleep", { ms: 400 })),
      turn("子一", echo("2")),
      turn("子一", echo("3")),
    ];
    await expectStopAndReplay(turns, ["--max-tool-calls", "4"], {
      code: "max_tool_calls",
      reason: "已执行 5 次工具（其中子 Agent 2 次），达到预算 4",
      steps: 2,
      toolCalls: 3,
    });
  });
});
