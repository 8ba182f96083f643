import { describe, expect, it } from "vitest";
import { parseModelResponse } from "../src/provider.ts";

function reasonOf(result: ReturnType<typeof parseModelResponse>): string {
  return result.ok ? "" : result.reason;
}

describe("parseModelResponse", () => {
  it("accepts a reply with exactly one of action and actions", () => {
    expect(parseModelResponse({ action: { type: "finish", summary: "ok" } })).toEqual({
      ok: true,
      response: { action: { type: "finish", summary: "ok" } },
    });
    expect(
      parseModelResponse({ actions: [1, 2], usage: { inputTokens: 1, outputTokens: 2 } }),
    ).toEqual({
      ok: true,
      response: { actions: [1, 2], usage: { inputTokens: 1, outputTokens: 2 } },
    });
  });

  it.each([
    ["neither action nor actions", { usage: { inputTokens: 1, outputTokens: 1 } }],
    ["both action and actions", { action: { type: "finish", summary: "a" }, actions: [{}] }],
  ])("rejects a reply with %s, saying that exactly one is needed", (_name, reply) => {
    expect(reasonOf(parseModelResponse(reply))).toBe(
      "Provider 返回的结构无效：(root): 需要 action 或 actions 之一（且只能有一个）",
    );
  });

  it("turns a reply whose getter throws into a reason naming the error", () => {
    const reply = {
      get action(): unknown {
        throw new Error("getter exploded");
      },
    };
    expect(parseModelResponse(reply)).toEqual({
      ok: false,
      reason: "Provider 返回的值无法读取：getter exploded",
    });
  });
});
