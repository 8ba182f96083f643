/**
 * The pieces behind a parent's whole-run figures (lesson 39) and its one extension order:
 * a child of unknown cost makes the total unknown, the log's children are summed as the run
 * summed them, and a parent and a child place their extensions alike.
 */
import type { RunExtension, RunResult } from "@coding-agent/agent-core";
import { describe, expect, it } from "vitest";
import { orderRunExtensions } from "../src/run-extensions.ts";
import { parseStateLog } from "../src/state/log.ts";
import { loggedChildSpend, planResume } from "../src/state/resume.ts";
import { addChildSpend, NOTHING_SPENT, withChildSpend } from "../src/subagents/spend.ts";

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
