import { formatVerdict } from "@bootcamp/checkpoint-shared";
import { runAgent, type ToolSet, toolError } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { describe, expect, it } from "vitest";
import { runOpenAIScenario, runWeek02, WEEK_02_TOOLS } from "../src/run-week-02.ts";
import { judgeWeek02, type ScenarioRun, WEEK_02_SUMMARY } from "../src/week-02.ts";

const call = (input: Record<string, unknown>) => ({ type: "tool_call", tool: "echo", input });
const finish = { type: "finish", summary: "完成" };

/** A fake-model scenario with its own script and tools, judged in place of the real one. */
async function fakeRun(actions: unknown[], tools: ToolSet = WEEK_02_TOOLS): Promise<ScenarioRun> {
  const provider = createScriptedProvider(actions.map((action) => ({ action })));
  const result = await runAgent("任务", provider, tools, { maxSteps: 5, maxToolErrors: 2 });
  return {
    name: "fake",
    result,
    sent: provider.requests.map((request) => JSON.stringify(request.messages)),
    rejected: [],
  };
}

const judgeFake = async (fake: ScenarioRun) => {
  const real = await runWeek02();
  return judgeWeek02({ fake, openai: real.openai });
};

describe("judgeWeek02", () => {
  it("passes the real checkpoint runs, with evidence read from their tool results", async () => {
    expect(judgeWeek02(await runWeek02())).toEqual({
      week: 2,
      ok: true,
      summary: WEEK_02_SUMMARY,
      evidence: [
        "fake:invalid_input(text)",
        "fake:echo:hello",
        "openai:invalid_input(text)",
        "openai:echo:hello",
      ],
    });
  });

  it("prints exactly the two expected lines for the real runs", async () => {
    const [line, json] = formatVerdict(judgeWeek02(await runWeek02()));
    expect(line).toBe(`第 2 周检查点通过：${WEEK_02_SUMMARY}`);
    expect(JSON.parse(json)).toMatchObject({ week: 2, ok: true });
  });

  it("fails when the model never sends a bad input", async () => {
    const verdict = await judgeFake(await fakeRun([call({ text: "hello" }), finish]));
    expect(verdict).toMatchObject({
      ok: false,
      reason: "fake：历史中没有 echo 的 invalid_input 结果",
    });
  });

  it("fails when the model finishes without correcting its input", async () => {
    const verdict = await judgeFake(await fakeRun([call({ text: 42 }), finish]));
    expect(verdict).toMatchObject({
      ok: false,
      evidence: expect.arrayContaining(["fake:invalid_input(text)"]),
    });
    expect(verdict.ok ? "" : verdict.reason).toContain("模型没有改正输入");
  });

  it("fails when the run does not complete", async () => {
    const verdict = await judgeFake(await fakeRun([call({ text: 42 }), call({ text: 43 })]));
    expect(verdict.ok ? "" : verdict.reason).toContain("budget_exceeded");
  });

  it("fails when the invalid input reached execute (a tool that checks its own input)", async () => {
    const unchecked: ToolSet = {
      echo: {
        execute: (input) =>
          typeof input.text === "string"
            ? input.text
            : toolError("invalid_input", "text 必须是字符串", [{ path: "text", message: "x" }]),
      },
    };
    const verdict = await judgeFake(
      await fakeRun([call({ text: 42 }), call({ text: "hello" }), finish], unchecked),
    );
    expect(verdict.ok ? "" : verdict.reason).toContain("无效输入到达了 execute");
  });

  it("fails when the invalid_input result was never shown to the model", async () => {
    const run = await fakeRun([call({ text: 42 }), call({ text: "hello" }), finish]);
    const verdict = await judgeFake({ ...run, sent: run.sent.slice(0, 1) });
    expect(verdict.ok ? "" : verdict.reason).toContain("没有出现在之后发给模型的内容里");
  });

  it("fails the adapter's scenario when the server rejected a request", async () => {
    const real = await runWeek02();
    const openai = { ...real.openai, rejected: ['{"error":{"message":"bad"}}'] };
    const verdict = judgeWeek02({ fake: real.fake, openai });
    expect(verdict).toMatchObject({ ok: false });
    expect(verdict.ok ? "" : verdict.reason).toMatch(/^openai：服务器拒绝了 1 个请求/);
  });

  it("formats a failure as a Chinese line and JSON with the reason", () => {
    const verdict = {
      week: 2,
      ok: false,
      summary: WEEK_02_SUMMARY,
      evidence: [],
      reason: "原因",
    } as const;
    const [line, json] = formatVerdict(verdict);
    expect(line).toBe("第 2 周检查点未通过：原因");
    expect(JSON.parse(json)).toEqual(verdict);
  });
});

describe("runOpenAIScenario", () => {
  it("sends the invalid_input result back over the wire as a tool message for the failed call", async () => {
    const run = await runOpenAIScenario();
    const second = JSON.parse(run.sent[1] ?? "{}") as {
      messages: { role: string; content: string }[];
    };
    const answer = second.messages.at(-1);
    expect(answer?.role).toBe("tool");
    expect(JSON.parse(answer?.content ?? "{}")).toMatchObject({
      ok: false,
      error: { code: "invalid_input" },
    });
    expect(run.rejected).toEqual([]);
  });
});
