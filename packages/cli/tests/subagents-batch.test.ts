/**
 * `createSubagents` in the loop (lesson 39): `spawn_agent` runs beside the reply's other
 * spawn_agent calls, each call passes its own extension points first, and a call that does not
 * start starts no child. Children end on events the test controls, not on timers.
 */
import { type RunExtension, runAgent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { createPathAllowance } from "@coding-agent/tools";
import { describe, expect, it } from "vitest";
import type { ChildOutcome, ChildRunner } from "../src/subagents/child-runner.ts";
import { createSubagents } from "../src/subagents/spawn-agent.ts";

const spawn = (goal: string) => ({ type: "tool_call", tool: "spawn_agent", input: { goal } });
const finish = { action: { type: "finish", summary: "看过了" } };

const outcome = (goal: string): ChildOutcome => ({
  status: "completed",
  code: "finished",
  summary: `${goal}：好了`,
  patch: "",
  files: [],
  excluded: [],
  steps: 1,
  toolCalls: 0,
  usage: { inputTokens: 0, outputTokens: 0 },
  costUsd: 0,
});

/** Vetoes the spawn_agent calls whose goal is `goal`, like a PreToolUse hook. */
const vetoing = (goal: string): RunExtension => ({
  name: "veto",
  beforeToolCall: (call) =>
    call.input.goal === goal
      ? { kind: "veto", error: { code: "hook_denied", message: "不许" } }
      : undefined,
});

/** A parent whose one reply spawns `goals`; `runChild` decides how each child ends. */
async function parent(goals: string[], limit: number, runChild: ChildRunner, veto?: string) {
  const controller = new AbortController();
  const limits = { maxSteps: 10 };
  const subagents = createSubagents({
    limit,
    limits,
    parentAllows: createPathAllowance([]),
    runChild,
    signal: controller.signal,
  });
  const provider = createScriptedProvider([{ actions: goals.map(spawn) }, finish]);
  try {
    const extensions = [...(veto === undefined ? [] : [vetoing(veto)]), subagents.extension];
    const result = await runAgent(
      "分给子 Agent",
      provider,
      subagents.tools,
      limits,
      controller.signal,
      {
        extensions,
      },
    );
    const answers = result.messages.flatMap((message) =>
      message.role === "tool" && "content" in message ? [JSON.parse(String(message.content))] : [],
    );
    return { result, answers };
  } finally {
    await subagents.close();
  }
}

describe("spawn_agent in the loop", () => {
  it("starts a reply's children together under a limit of 2: each waits for the other", async () => {
    const started = new Set<string>();
    let bothStarted = () => {};
    const both = new Promise<void>((resolve) => {
      bothStarted = resolve;
    });
    const runChild: ChildRunner = async (spec) => {
      started.add(spec.goal);
      if (started.size === 2) bothStarted();
      // Neither ends before both have started: run one after the other, this never settles.
      await both;
      return outcome(spec.goal);
    };
    const { result, answers } = await parent(["一", "二"], 2, runChild);
    expect(result.status).toBe("completed");
    expect(answers.map((answer) => answer.summary)).toEqual(["一：好了", "二：好了"]);
  });

  it("starts the second child only once the first has ended under a limit of 1", async () => {
    const events: string[] = [];
    const runChild: ChildRunner = async (spec) => {
      events.push(`${spec.goal} 开始`);
      await Promise.resolve();
      events.push(`${spec.goal} 结束`);
      return outcome(spec.goal);
    };
    const { answers } = await parent(["一", "二"], 1, runChild);
    expect(events).toEqual(["一 开始", "一 结束", "二 开始", "二 结束"]);
    expect(answers.map((answer) => answer.summary)).toEqual(["一：好了", "二：好了"]);
  });

  it("starts no child for a later call an extension vetoes", async () => {
    const goals: string[] = [];
    const runChild: ChildRunner = async (spec) => {
      goals.push(spec.goal);
      return outcome(spec.goal);
    };
    const { result, answers } = await parent(["允许", "禁止"], 2, runChild, "禁止");
    expect(result.status).toBe("completed");
    expect(goals).toEqual(["允许"]);
    expect(answers[0]).toMatchObject({ summary: "允许：好了" });
  });

  it("holds no lane for a vetoed call under a limit of 1: the next call's child runs", async () => {
    const goals: string[] = [];
    const runChild: ChildRunner = async (spec) => {
      goals.push(spec.goal);
      return outcome(spec.goal);
    };
    const { result, answers } = await parent(["禁止", "允许"], 1, runChild, "禁止");
    expect(result.status).toBe("completed");
    expect(goals).toEqual(["允许"]);
    expect(answers[1]).toMatchObject({ summary: "允许：好了" });
  });
});
