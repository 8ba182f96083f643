import { formatVerdict } from "@bootcamp/checkpoint-shared";
import { runAgent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { describe, expect, it } from "vitest";
import { runWeek01 } from "../src/run-week-01.ts";
import { judgeWeek01, WEEK_01_SUMMARY } from "../src/week-01.ts";

const echo = { echo: { execute: (input: Readonly<Record<string, unknown>>) => input.text } };

async function runWith(turns: unknown[], tools = echo, maxSteps = 4) {
  const provider = createScriptedProvider(turns.map((action) => ({ action })));
  const result = await runAgent("任务", provider, tools, { maxSteps });
  return { result, requests: provider.requests };
}

describe("judgeWeek01", () => {
  it("passes the real checkpoint run, with evidence read from its echo result", async () => {
    const verdict = judgeWeek01(await runWeek01());
    expect(verdict).toEqual({
      week: 1,
      ok: true,
      summary: WEEK_01_SUMMARY,
      evidence: ["echo:hello"],
    });
  });

  it("prints exactly the two expected lines for the real run", async () => {
    expect(formatVerdict(judgeWeek01(await runWeek01()))).toEqual([
      "第 1 周检查点通过：最小 Agent 完成 echo 后结束",
      '{"week":1,"ok":true,"summary":"最小 Agent 完成 echo 后结束","evidence":["echo:hello"]}',
    ]);
  });

  it("derives the evidence from the run, so another echo value shows and fails", async () => {
    const run = await runWith([
      { type: "tool_call", tool: "echo", input: { text: "bye" } },
      { type: "finish", summary: WEEK_01_SUMMARY },
    ]);
    expect(judgeWeek01(run)).toMatchObject({ ok: false, evidence: ["echo:bye"] });
  });

  it("fails when the run does not complete", async () => {
    const run = await runWith(
      [{ type: "tool_call", tool: "echo", input: { text: "hello" } }],
      echo,
      1,
    );
    const verdict = judgeWeek01(run);
    expect(verdict).toMatchObject({ ok: false, evidence: ["echo:hello"] });
    expect(verdict.ok ? "" : verdict.reason).toContain("budget_exceeded");
  });

  it("fails when the model finishes without calling echo", async () => {
    const run = await runWith([{ type: "finish", summary: WEEK_01_SUMMARY }]);
    expect(judgeWeek01(run)).toMatchObject({
      ok: false,
      evidence: [],
      reason: "历史中没有 echo 工具的成功结果",
    });
  });

  it("fails when no later model request contained the echo result", async () => {
    const run = await runWeek01();
    const verdict = judgeWeek01({ result: run.result, requests: run.requests.slice(0, 1) });
    expect(verdict).toMatchObject({ ok: false });
    expect(verdict.ok ? "" : verdict.reason).toContain("观察没有回写");
  });

  it("formats a failure as a Chinese line and JSON with the reason", () => {
    const [line, json] = formatVerdict({
      week: 1,
      ok: false,
      summary: WEEK_01_SUMMARY,
      evidence: [],
      reason: "原因",
    });
    expect(line).toBe("第 1 周检查点未通过：原因");
    expect(JSON.parse(json)).toEqual({
      week: 1,
      ok: false,
      summary: WEEK_01_SUMMARY,
      evidence: [],
      reason: "原因",
    });
  });
});
