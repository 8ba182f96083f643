/**
 * The pieces behind a parent's whole-run figures (lesson 39) and its one extension order:
 * a child of unknown cost makes the total unknown, the log's children are summed as the run
 * summed them, and a parent and a child place their extensions alike.
 */
import type { Limits, RunExtension, RunResult } from "@coding-agent/agent-core";
import { describe, expect, it } from "vitest";
import { replayedChildBudget } from "../src/replay/child-budget.ts";
import { orderRunExtensions } from "../src/run-extensions.ts";
import { parseStateLog } from "../src/state/log.ts";
import { loggedChildSpend, planResume } from "../src/state/resume.ts";
import {
  addChildSpend,
  childrenOverBudget,
  NOTHING_SPENT,
  withChildSpend,
} from "../src/subagents/spend.ts";

const parentResult = (costUsd: number | null): RunResult => ({
  status: "completed",
  code: "finished",
  reason: "好了",
  summary: "好了",
  steps: 2,
  toolCalls: 1,
  usage: { inputTokens: 100, outputTokens: 10 },
  costUsd,
  messages: [],
});
const child = (costUsd: number | null) => ({
  steps: 1,
  toolCalls: 2,
  usage: { inputTokens: 5, outputTokens: 1 },
  costUsd,
});

const line = (seq: number, body: Record<string, unknown>) =>
  `${JSON.stringify({ seq, ...body })}\n`;
/** A child's `subagent_finished` line (1 step, 2 tool calls, 6 tokens). */
const end = (seq: number, costUsd: number | null) =>
  line(seq, {
    type: "subagent_finished",
    index: seq,
    callId: `call_${seq}`,
    status: "completed",
    code: "finished",
    ...child(costUsd),
  });
const reply = (seq: number, step: number) =>
  line(seq, { type: "model_reply", step, actions: [], usage: { inputTokens: 7, outputTokens: 7 } });
const STARTED = line(1, {
  type: "run_started",
  runId: "r",
  startedAt: "2026-12-01T00:00:00Z",
  goal: "g",
  workspace: "/w",
  options: {},
  startVersion: "v",
});

describe("a parent's figures with its children's", () => {
  it("adds usage and cost, keeps the parent's steps and tool calls, names the children's part", () => {
    const spent = addChildSpend(addChildSpend(NOTHING_SPENT, child(0.25)), child(0.5));
    const whole = withChildSpend(parentResult(1), spent);
    expect(whole).toMatchObject({
      steps: 2,
      toolCalls: 1,
      usage: { inputTokens: 110, outputTokens: 12 },
      costUsd: 1.75,
      subagents: {
        runs: 2,
        steps: 2,
        toolCalls: 4,
        usage: { inputTokens: 10, outputTokens: 2 },
        costUsd: 0.75,
      },
    });
  });

  it("a child of unknown cost makes the children's and the whole cost null, whatever comes after", () => {
    const spent = addChildSpend(addChildSpend(NOTHING_SPENT, child(null)), child(0.5));
    expect(spent.costUsd).toBeNull();
    expect(withChildSpend(parentResult(1), spent).costUsd).toBeNull();
    // And a parent of unknown cost stays unknown with children of known cost.
    expect(
      withChildSpend(parentResult(null), addChildSpend(NOTHING_SPENT, child(1))).costUsd,
    ).toBeNull();
  });

  it("sums the log's subagent_finished lines in log order, other lines left alone", () => {
    const read = parseStateLog(STARTED + end(2, 0.1) + reply(3, 1) + end(4, 0.2));
    if (!read.ok) throw new Error(read.message);
    const whole = {
      runs: 2,
      steps: 2,
      toolCalls: 4,
      usage: { inputTokens: 10, outputTokens: 2 },
      // 0.1 + 0.2 in that order: the run's own sum, to the last bit.
      costUsd: 0.1 + 0.2,
    };
    expect(loggedChildSpend(read.events)).toEqual(whole);
    // Before a seq: only the lines before it.
    expect(loggedChildSpend(read.events, 4)).toEqual({ ...whole, ...child(0.1), runs: 1 });
    expect(loggedChildSpend(read.events, 2)).toEqual(NOTHING_SPENT);
    const unknown = parseStateLog(STARTED + end(2, null) + reply(3, 1) + end(4, 0.2));
    expect(unknown.ok && loggedChildSpend(unknown.events).costUsd).toBeNull();
    // A line with a cost that is no cost is refused, not summed.
    expect(parseStateLog(STARTED + end(2, -1) + reply(3, 1)).ok).toBe(false);
  });
});

describe("the log's children counted by a resume and a replay", () => {
  it("a resume plan carries the whole log's children, summed as the run summed them", () => {
    const read = parseStateLog(STARTED + end(2, 0.1) + reply(3, 1) + end(4, 0.2));
    if (!read.ok) throw new Error(read.message);
    const planned = planResume(read.events);
    if (!planned.ok) throw new Error("not resumable");
    expect(planned.plan.subagents).toEqual(loggedChildSpend(read.events));
    expect(planned.plan.subagents).toMatchObject({ runs: 2, steps: 2, costUsd: 0.1 + 0.2 });
  });

  /** The replay's budget check before each step's call, with the parent's replies traced. */
  async function replayedStops(log: string, limits: Limits, maxCostUsd?: number) {
    const read = parseStateLog(log);
    if (!read.ok) throw new Error(read.message);
    const check = replayedChildBudget(read.events, limits, maxCostUsd);
    const signal = new AbortController().signal;
    const stops: unknown[] = [];
    for (const step of [1, 2, 3]) {
      stops.push(
        await check.beforeModelCall?.(
          { task: { goal: "g" }, messages: [], step, tools: [] },
          signal,
        ),
      );
      check.onTrace?.({
        type: "model_completed",
        step,
        ok: true,
        detail: "",
        usage: { inputTokens: 1, outputTokens: 0 },
        costUsd: 0.01,
        seq: step,
        atMs: 0,
      });
    }
    return stops;
  }

  it("a replay counts, before step n's call, the children logged before reply n", async () => {
    // Reply 1 at seq 3, reply 2 at seq 5; one child ended before each.
    const log = STARTED + end(2, 0.1) + reply(3, 1) + end(4, 0.2) + reply(5, 2);
    // Step 1: the first child's 1 step; step 2: the parent's 1 and both children's 2.
    expect(await replayedStops(log, { maxSteps: 3 })).toEqual([
      undefined,
      { kind: "stop", code: "max_steps", reason: "已用 3 步（其中子 Agent 2 步），达到预算 3" },
      { kind: "stop", code: "max_steps", reason: "已用 4 步（其中子 Agent 2 步），达到预算 3" },
    ]);
    // The second child ended after reply 1: counted before step 1, it would stop step 1.
    expect(await replayedStops(log, { maxSteps: 2 })).toEqual([
      undefined,
      expect.objectContaining({ code: "max_steps" }),
      expect.objectContaining({ code: "max_steps" }),
    ]);
    // Tokens: the children's 6 each, the parent's 1 per reply.
    expect(await replayedStops(log, { maxSteps: 99, maxTokens: 13 })).toEqual([
      undefined,
      {
        kind: "stop",
        code: "max_tokens",
        reason: "已用 13 个 token（其中子 Agent 12 个），达到预算 13",
      },
      expect.objectContaining({ code: "max_tokens" }),
    ]);
  });

  it("a replay of a run that ended counts, for the call it never made, every child before its end", async () => {
    const finished = line(6, { type: "run_finished", status: "completed", code: "finished" });
    const log = STARTED + reply(2, 1) + reply(3, 2) + end(4, 0.1) + end(5, 0.2) + finished;
    // Replies 1 and 2 come before any child; the third call (never made) sees both.
    const stops = await replayedStops(log, { maxSteps: 4 });
    expect(stops).toEqual([
      undefined,
      undefined,
      { kind: "stop", code: "max_steps", reason: "已用 4 步（其中子 Agent 2 步），达到预算 4" },
    ]);
  });
});

describe("childrenOverBudget's cost stop", () => {
  const spend = (costUsd: number) => ({ steps: 1, toolCalls: 0, tokens: 0, costUsd });

  it("prints the sum as the run's own cost stop does, not as a raw float", () => {
    // 0.1 + 0.2 is 0.30000000000000004: at the budget of 0.3, and printed as $0.3000.
    expect(childrenOverBudget({ maxSteps: 10 }, 0.3, spend(0.1), spend(0.2))).toEqual({
      kind: "stop",
      code: "max_cost",
      reason: "已花费 $0.3000（其中子 Agent $0.2000），达到成本预算 $0.3000",
    });
    // A fraction of a cent keeps its digits.
    expect(childrenOverBudget({ maxSteps: 10 }, 0.001, spend(0.0004), spend(0.0007))).toEqual({
      kind: "stop",
      code: "max_cost",
      reason: "已花费 $0.001100（其中子 Agent $0.000700），达到成本预算 $0.001000",
    });
    expect(childrenOverBudget({ maxSteps: 10 }, 0.31, spend(0.1), spend(0.2))).toBeUndefined();
  });
});

describe("orderRunExtensions", () => {
  const ext = (name: string): RunExtension => ({ name });
  it("places resume, gate, tool hooks, recorder, Stop hooks, features and subagents in that order", () => {
    const order = orderRunExtensions({
      resume: ext("resume"),
      gate: ext("gate"),
      hooks: { tools: [ext("pre-post")], stop: [ext("stop")] },
      recorder: ext("recorder"),
      features: [ext("loop"), ext("context")],
      subagents: ext("subagents"),
    });
    expect(order.map((extension) => extension.name)).toEqual([
      "resume",
      "gate",
      "pre-post",
      "recorder",
      "stop",
      "loop",
      "context",
      "subagents",
    ]);
    // A child's: no resume, no subagents, the rest in the same places.
    const child = orderRunExtensions({
      gate: ext("gate"),
      hooks: { tools: [], stop: [ext("stop")] },
      recorder: ext("versions"),
      features: [ext("loop")],
    });
    expect(child.map((extension) => extension.name)).toEqual(["gate", "versions", "stop", "loop"]);
  });
});
