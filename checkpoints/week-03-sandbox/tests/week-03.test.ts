import { formatVerdict } from "@bootcamp/checkpoint-shared";
import { leftInCallersHome } from "@bootcamp/checkpoint-shared/testing";
import { describe, expect, it } from "vitest";
import { runWeek03, WEEK_03_SCRIPT } from "../src/run-week-03.ts";
import { judgeWeek03, OUTSIDE_SECRET, WEEK_03_SUMMARY } from "../src/week-03.ts";

const EVIDENCE = [
  'list_files:{}→["README.md","src/index.ts"]',
  'read_file:{"path":"README.md"}→totalLines=2',
  'run_command:{"argv":["node","--version"]}→exitCode=0',
  'read_file:{"path":"../outside.txt"}→path_outside_workspace',
  'run_command:{"argv":["touch","blocked-command-ran.txt"]}→permission_denied',
  "exit:4",
];

/** The checkpoint script with turn `index` replaced. */
const withTurn = (index: number, action: unknown) =>
  WEEK_03_SCRIPT.map((turn, i) => (i === index ? { action } : turn));

describe("judgeWeek03", () => {
  it("passes the real checkpoint run and prints exactly the two expected lines", async () => {
    const verdict = judgeWeek03(await runWeek03());
    expect(verdict).toEqual({ week: 3, ok: true, summary: WEEK_03_SUMMARY, evidence: EVIDENCE });
    expect(formatVerdict(verdict)).toEqual([
      `第 3 周检查点通过：${WEEK_03_SUMMARY}`,
      JSON.stringify({ week: 3, ok: true, summary: WEEK_03_SUMMARY, evidence: EVIDENCE }),
    ]);
  });

  it("keeps the run's records out of the caller's $CODING_AGENT_HOME", async () => {
    expect(await leftInCallersHome(() => runWeek03())).toEqual([]);
  });

  it("fails when the read that should leave the workspace stays inside", async () => {
    const run = await runWeek03(
      withTurn(3, { type: "tool_call", tool: "read_file", input: { path: "src/index.ts" } }),
    );
    const verdict = judgeWeek03(run);
    expect(verdict).toMatchObject({ ok: false });
    expect(verdict.ok ? "" : verdict.reason).toContain("path_outside_workspace");
  });

  it("fails when the run is not blocked (the last command was allowed)", async () => {
    const run = await runWeek03(
      withTurn(4, { type: "tool_call", tool: "run_command", input: { argv: ["node", "-e", "0"] } }),
    );
    expect(run.exitCode).toBe(0);
    const verdict = judgeWeek03(run);
    expect(verdict.ok ? "" : verdict.reason).toContain("blocked");
  });

  it("fails when the allowed command did not succeed", async () => {
    const run = await runWeek03(
      withTurn(2, {
        type: "tool_call",
        tool: "run_command",
        input: { argv: ["node", "-e", "process.exit(3)"] },
      }),
    );
    expect(judgeWeek03(run)).toMatchObject({
      ok: false,
      reason: "允许的 node --version 没有成功运行",
    });
  });

  it("fails when the refused command left its file behind", async () => {
    const run = await runWeek03();
    expect(judgeWeek03({ ...run, blockedCommandRan: true })).toMatchObject({
      ok: false,
      reason: "被阻止的命令仍然执行了",
    });
  });

  it("fails when the outside file's content leaks into the output", async () => {
    const run = await runWeek03();
    const leaked = { ...run, stdout: run.stdout.replace("README.md", OUTSIDE_SECRET.trim()) };
    expect(judgeWeek03(leaked)).toMatchObject({ ok: false });
  });

  it("fails, with the exit code as evidence, when the output is not a RunResult", () => {
    expect(judgeWeek03({ exitCode: 2, stdout: "用法错误", blockedCommandRan: false })).toEqual({
      week: 3,
      ok: false,
      summary: WEEK_03_SUMMARY,
      evidence: ["exit:2"],
      reason: "coding-agent run --json 的输出不是 RunResult",
    });
  });
});
