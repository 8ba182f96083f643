import { describe, expect, it } from "vitest";
import { parseAction } from "../src/action.ts";
import { runAgent } from "../src/agent-loop.ts";
import { InvalidLimitsError, InvalidTaskError } from "../src/errors.ts";
import { parseLimits } from "../src/loop-guard.ts";
import { parseModelResponse } from "../src/provider.ts";

// Every place that turns zod issues into text writes them one way (issues.ts): `path: message`,
// indices in brackets, `(root)` for the value itself.

function reasonOf(result: { ok: true } | { ok: false; reason: string }): string {
  return result.ok ? "" : result.reason;
}

describe("zod issues in agent-core's messages", () => {
  it("a provider's reply: every issue at its field, the whole reply as (root)", () => {
    expect(reasonOf(parseModelResponse("不是对象"))).toMatch(
      /^Provider 返回的结构无效：\(root\): /,
    );
    const reason = reasonOf(
      parseModelResponse({ actions: [], usage: { inputTokens: -1, outputTokens: 1 } }),
    );
    expect(reason).toContain("actions: actions 不能为空；usage.inputTokens: ");
  });

  it("an action: the field that is wrong, after the action type", () => {
    expect(reasonOf(parseAction({ type: "finish", summary: 5 }))).toMatch(
      /^finish 动作无效：summary: /,
    );
  });

  it("limits: English for the developer who passed them, (root) for a value that is no object", () => {
    expect(() => parseLimits({ maxSteps: -1 })).toThrow(/^invalid limits: maxSteps: /);
    expect(() => parseLimits(5)).toThrow(InvalidLimitsError);
    expect(() => parseLimits(5)).toThrow(/^invalid limits: \(root\): /);
  });

  it("a task: list indices in brackets, issues joined with '; '", async () => {
    const task = { goal: "", constraints: ["ok", "   "] };
    await expect(
      runAgent(task, { complete: async () => ({}) }, {}, { maxSteps: 1 }),
    ).rejects.toThrow(InvalidTaskError);
    await expect(
      runAgent(task, { complete: async () => ({}) }, {}, { maxSteps: 1 }),
    ).rejects.toThrow(/^invalid task: goal: .+; constraints\[1\]: 约束不能为空$/);
  });
});
