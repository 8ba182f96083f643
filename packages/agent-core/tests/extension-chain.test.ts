import { describe, expect, it, vi } from "vitest";
import { runAgent } from "../src/agent-loop.ts";
import { needsApproval, toolApproval } from "../src/approval.ts";
import { deepFreeze } from "../src/deep-freeze.ts";
import { chainExtensions, type RunExtension } from "../src/extension.ts";
import { createScriptedProvider } from "../src/testing/index.ts";
import { asToolError, ToolErrorResultSchema, toolError } from "../src/tool-error.ts";
import { blockRun, createToolRegistry, type ToolSet } from "../src/tools.ts";

describe("chainExtensions", () => {
  it("lists at each deciding point only the extensions that implement it, in order", () => {
    const a: RunExtension = { name: "a", onFinish: () => undefined, onTrace: () => {} };
    const b: RunExtension = {
      name: "b",
      beforeToolCall: () => undefined,
      onFinish: () => undefined,
    };
    const chain = chainExtensions([a, b]);
    expect(chain.onFinish).toEqual([a, b]);
    expect(chain.beforeToolCall).toEqual([b]);
    expect(chain.beforeModelCall).toEqual([]);
    expect(chain.afterReply).toEqual([]);
    expect(chain.afterToolCall).toEqual([]);
    expect(Object.isFrozen(chain.onFinish)).toBe(true);
  });
});

describe("the tool's authorize on the extension interface", () => {
  const gated: ToolSet = {
    open: { execute: () => "ran open" },
    guarded: { authorize: () => blockRun("不允许"), execute: () => "ran guarded" },
  };

  it("is asked only when some registered tool asks for permission", () => {
    expect(needsApproval(createToolRegistry(gated))).toBe(true);
    expect(needsApproval(createToolRegistry({ open: { execute: () => "x" } }))).toBe(false);
    expect(needsApproval(createToolRegistry({}))).toBe(false);
  });

  it("treats a tool a hand-written registry lists but does not hold as unknown", async () => {
    const registry = { ...createToolRegistry({ open: { execute: () => "x" } }), names: ["gone"] };
    expect(needsApproval(registry)).toBe(false);
    const script = [{ action: { type: "tool_call", tool: "gone", input: {} } }];
    const result = await runAgent("目标", createScriptedProvider(script), registry, {
      maxSteps: 1,
    });
    expect(result.messages[2]).toMatchObject({
      role: "tool",
      ok: false,
      error: { code: "unknown_tool" },
    });
  });

  it("lets a tool without authorize run in a registry where another one asks", async () => {
    const script = [
      { action: { type: "tool_call", tool: "open", input: {} } },
      { action: { type: "tool_call", tool: "guarded", input: {} } },
    ];
    const result = await runAgent("目标", createScriptedProvider(script), gated, { maxSteps: 3 });
    expect(result).toMatchObject({
      status: "blocked",
      toolCalls: 1,
      reason: "工具 guarded 被阻止：不允许",
    });
    expect(result.messages[2]).toMatchObject({ role: "tool", ok: true, content: "ran open" });
  });

  it("answers go on for an allowed call and block for a refused one", async () => {
    const signal = new AbortController().signal;
    const info = (definition: ToolSet[string]) => ({
      step: 1,
      callId: "c",
      tool: "t",
      input: {},
      definition: definition as NonNullable<ToolSet[string]>,
    });
    expect(await toolApproval.beforeToolCall?.(info({ execute: () => 1 }), signal)).toBeUndefined();
    expect(
      await toolApproval.beforeToolCall?.(
        info({ authorize: () => undefined, execute: () => 1 }),
        signal,
      ),
    ).toBeUndefined();
    expect(
      await toolApproval.beforeToolCall?.(
        info({ authorize: () => blockRun("否"), execute: () => 1 }),
        signal,
      ),
    ).toEqual({ kind: "block", reason: "否" });
    expect(toolApproval.name).toBe("authorize");
  });
});

describe("asToolError", () => {
  it("reads the error a tool returned", () => {
    expect(asToolError(toolError("not_found", "没有"))).toEqual({
      code: "not_found",
      message: "没有",
    });
  });

  it.each([
    ["a text", "ok"],
    ["null", null],
    ["undefined", undefined],
    ["a number", 0],
    ["a success", { ok: true, value: 1 }],
    ["an error without a code", { ok: false, error: { message: "m" } }],
    [
      "a hostile value",
      new Proxy(
        {},
        {
          get: () => {
            throw new Error("trap");
          },
        },
      ),
    ],
  ])("answers undefined for %s, never throwing", (_, value) => {
    expect(asToolError(value)).toBeUndefined();
  });

  it("asks the schema only about a value with ok: false", () => {
    const spy = vi.spyOn(ToolErrorResultSchema, "safeParse");
    try {
      asToolError({ ok: true, value: 1 });
      asToolError("text");
      expect(spy).not.toHaveBeenCalled();
      asToolError({ ok: false, error: { code: "c", message: "m" } });
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("deepFreeze", () => {
  it("freezes every object and array of a graph and returns it", () => {
    const value = { a: { b: [1, { c: "x" }] }, d: null, e: "t" };
    expect(deepFreeze(value)).toBe(value);
    expect(Object.isFrozen(value.a)).toBe(true);
    expect(Object.isFrozen(value.a.b)).toBe(true);
    expect(Object.isFrozen(value.a.b[1])).toBe(true);
  });

  it("returns texts, numbers, null and undefined as they are", () => {
    expect(deepFreeze("x")).toBe("x");
    expect(deepFreeze(1)).toBe(1);
    expect(deepFreeze(null)).toBeNull();
    expect(deepFreeze(undefined)).toBeUndefined();
  });

  it("leaves a part frozen before alone (it is not walked again)", () => {
    const inner = Object.freeze({ open: {} as Record<string, unknown> });
    deepFreeze({ inner });
    expect(Object.isFrozen(inner.open)).toBe(false);
  });
});
