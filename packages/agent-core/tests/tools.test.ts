import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { runAgent } from "../src/agent-loop.ts";
import { InvalidToolRegistryError } from "../src/errors.ts";
import type { Limits } from "../src/loop-guard.ts";
import { createScriptedProvider } from "../src/testing/index.ts";
import { ToolErrorResultSchema, toolError } from "../src/tool-error.ts";
import {
  blockRun,
  createToolRegistry,
  defineTool,
  isBlockedOutcome,
  isToolRegistry,
  type Tool,
  type ToolRegistry,
} from "../src/tools.ts";
import type { TraceEvent } from "../src/trace.ts";

const noop = { execute: () => undefined };

describe("createToolRegistry", () => {
  it("finds registered tools by name", () => {
    const registry = createToolRegistry({ echo: noop });
    expect(registry.get("echo")).toBe(noop);
  });

  it("does not find Object.prototype members", () => {
    const registry = createToolRegistry({ echo: noop });
    expect(
      ["constructor", "toString", "__proto__", "valueOf"].map((name) => registry.get(name)),
    ).toEqual([undefined, undefined, undefined, undefined]);
  });

  it("lists names sorted and describes each tool", () => {
    const registry = createToolRegistry({ b: { ...noop, description: "second" }, a: noop });
    expect(registry.names).toEqual(["a", "b"]);
    expect(registry.descriptions).toEqual([
      { name: "a", description: "", inputSchema: { type: "object" } },
      { name: "b", description: "second", inputSchema: { type: "object" } },
    ]);
  });

  it("describes a tool's input with the JSON Schema of its zod schema, without the dialect marker", () => {
    const registry = createToolRegistry({
      read_file: defineTool({
        inputSchema: z.strictObject({ path: z.string().min(1), startLine: z.int().optional() }),
        execute: () => "",
      }),
    });
    const schema = registry.descriptions[0]?.inputSchema;
    expect(schema).toMatchObject({
      type: "object",
      properties: { path: { type: "string", minLength: 1 }, startLine: { type: "integer" } },
      required: ["path"],
      additionalProperties: false,
    });
    expect(schema).not.toHaveProperty("$schema");
    expect(Object.isFrozen(schema)).toBe(true);
  });

  it.each([
    ["a schema that is not an object", z.string()],
    ["a schema JSON Schema cannot carry", z.object({ when: z.date() })],
  ])("rejects %s when the registry is built", (_, inputSchema) => {
    expect(() => createToolRegistry({ t: { inputSchema, execute: () => "" } })).toThrow(
      InvalidToolRegistryError,
    );
  });
});

describe("ToolRegistry.validate", () => {
  const registry = createToolRegistry({
    echo: defineTool({
      inputSchema: z.strictObject({ text: z.string(), times: z.int().min(1).default(1) }),
      execute: ({ text, times }) => text.repeat(times),
    }),
    free: noop,
  });

  it("returns the parsed input, defaults applied and frozen", () => {
    const checked = registry.validate("echo", { text: "hi" });
    expect(checked).toEqual({ ok: true, input: { text: "hi", times: 1 } });
    expect(checked.ok && Object.isFrozen(checked.input)).toBe(true);
  });

  it("reports every problem as invalid_input, each at its path", () => {
    const checked = registry.validate("echo", { text: 1, times: 0, extra: true });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.error.code).toBe("invalid_input");
    expect(checked.error.issues?.map((issue) => issue.path)).toEqual(["text", "times", "(root)"]);
    expect(checked.error.message).toContain("echo");
    expect(checked.error.message).toContain("text: ");
  });

  it("names nested paths with dots and indexes", () => {
    const nested = createToolRegistry({
      edit: {
        inputSchema: z.object({ edits: z.array(z.object({ path: z.string() })) }),
        execute: () => "",
      },
    });
    const checked = nested.validate("edit", { edits: [{ path: "a" }, { path: 2 }] });
    expect(checked.ok ? [] : checked.error.issues?.map((issue) => issue.path)).toEqual([
      "edits[1].path",
    ]);
  });

  it("accepts any object for a tool without a schema", () => {
    expect(registry.validate("free", { anything: [1] })).toEqual({
      ok: true,
      input: { anything: [1] },
    });
  });

  it("never calls execute (validation is separate from running)", () => {
    const execute = vi.fn();
    const spied = createToolRegistry({
      t: { inputSchema: z.object({ n: z.number() }), execute },
    });
    spied.validate("t", { n: "x" });
    spied.validate("t", { n: 1 });
    expect(execute).not.toHaveBeenCalled();
  });
});

describe("isToolRegistry", () => {
  it("tells a registry from a plain tool set", () => {
    expect(isToolRegistry(createToolRegistry({ echo: noop }))).toBe(true);
    expect(isToolRegistry({ echo: noop })).toBe(false);
  });
});

describe("blockRun", () => {
  it("ends the run blocked with the call and the reason, without asking the model again", async () => {
    const provider = createScriptedProvider([
      { action: { type: "tool_call", tool: "gated", input: { argv: ["rm", "x"] } } },
      { action: { type: "finish", summary: "不该到这里" } },
    ]);
    const result = await runAgent(
      "删除",
      provider,
      { gated: { execute: () => blockRun("用户拒绝了 rm") } },
      { maxSteps: 5 },
    );
    expect(result).toMatchObject({ status: "blocked", code: "permission_denied", steps: 1 });
    expect(result.reason).toContain("用户拒绝了 rm");
    expect(result.reason).toContain("gated");
    expect(result.messages.at(-1)).toMatchObject({ role: "tool", tool: "gated", ok: false });
    expect(provider.requests).toHaveLength(1);
  });

  it("is not triggered by a tool returning look-alike JSON", async () => {
    const lookAlike = JSON.parse(JSON.stringify({ ...blockRun("x"), blocked: true, reason: "x" }));
    expect(isBlockedOutcome(lookAlike)).toBe(false);
    const result = await runAgent(
      "看看",
      createScriptedProvider([
        { action: { type: "tool_call", tool: "echo", input: {} } },
        { action: { type: "finish", summary: "完成" } },
      ]),
      { echo: { execute: () => lookAlike } },
      { maxSteps: 5 },
    );
    expect(result.status).toBe("completed");
  });
});

describe("authorize", () => {
  /** One call to `gated`, then finish; every trace event kept. */
  async function runGated(
    tool: Tool,
    options: { signal?: AbortSignal; limits?: Omit<Limits, "maxSteps"> } = {},
  ) {
    const events: TraceEvent[] = [];
    const provider = createScriptedProvider([
      { action: { type: "tool_call", tool: "gated", input: { argv: ["rm", "x"] }, callId: "c1" } },
      { action: { type: "finish", summary: "完成" } },
    ]);
    const result = await runAgent(
      "删除",
      provider,
      { gated: tool },
      { maxSteps: 5, ...options.limits },
      options.signal,
      { trace: (event) => void events.push(event) },
    );
    const types = events.map((event) => event.type);
    return { result, types, provider };
  }

  it("a refusal ends the run blocked before the call starts: not run, not counted, not traced as started", async () => {
    const execute = vi.fn(() => "ran");
    const { result, types, provider } = await runGated({
      authorize: () => blockRun("用户拒绝了 rm"),
      execute,
    });
    expect(result).toMatchObject({ status: "blocked", code: "permission_denied", toolCalls: 0 });
    expect(result.reason).toContain("用户拒绝了 rm");
    expect(result.reason).toContain("gated");
    expect(execute).not.toHaveBeenCalled();
    expect(types).not.toContain("tool_started");
    expect(types).not.toContain("tool_completed");
    expect(result.messages.at(-1)).toMatchObject({
      role: "tool",
      callId: "c1",
      ok: false,
      error: { code: "permission_denied" },
    });
    expect(provider.requests).toHaveLength(1);
  });

  it("the same refusal returned by execute still ends the run blocked, but that call had started and counts", async () => {
    const { result, types } = await runGated({ execute: () => blockRun("用户拒绝了 rm") });
    expect(result).toMatchObject({ status: "blocked", toolCalls: 1 });
    expect(types).toContain("tool_started");
  });

  it("lets the call run when it answers undefined, with the very input execute gets", async () => {
    const seen: unknown[] = [];
    const { result, types } = await runGated({
      authorize: async (input) => {
        seen.push(input);
        return undefined;
      },
      execute: (input) => {
        seen.push(input);
        return "ran";
      },
    });
    expect(result).toMatchObject({ status: "completed", toolCalls: 1 });
    expect(types.filter((type) => type === "tool_started")).toHaveLength(1);
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(seen[1]);
  });

  it("an authorize that throws never lets the call through: the run fails tool_error, nothing ran", async () => {
    const execute = vi.fn(() => "ran");
    const { result, types } = await runGated({
      authorize: () => {
        throw new Error("终端已关闭");
      },
      execute,
    });
    expect(result).toMatchObject({ status: "failed", code: "tool_error", toolCalls: 0 });
    expect(result.reason).toContain("终端已关闭");
    expect(execute).not.toHaveBeenCalled();
    expect(types).not.toContain("tool_started");
  });

  it("a cancel while it waits for an answer ends the run cancelled, nothing ran", async () => {
    const controller = new AbortController();
    const execute = vi.fn(() => "ran");
    const { result, types } = await runGated(
      {
        authorize: () => {
          controller.abort();
          return new Promise<undefined>(() => {});
        },
        execute,
      },
      { signal: controller.signal },
    );
    expect(result).toMatchObject({ status: "cancelled", code: "cancelled", toolCalls: 0 });
    expect(execute).not.toHaveBeenCalled();
    expect(types).not.toContain("tool_started");
    expect(result.messages.at(-1)).toMatchObject({ role: "tool", callId: "c1", ok: false });
  });

  it("waiting for an answer spends the run's time: maxDurationMs ends it budget_exceeded, nothing ran", async () => {
    const execute = vi.fn(() => "ran");
    const { result, types } = await runGated(
      { authorize: () => new Promise<undefined>(() => {}), execute },
      { limits: { maxDurationMs: 50 } },
    );
    expect(result).toMatchObject({ status: "budget_exceeded", code: "max_duration", toolCalls: 0 });
    expect(execute).not.toHaveBeenCalled();
    expect(types).not.toContain("tool_started");
  });

  it("is not asked when the call cannot run anyway (maxToolCalls reached)", async () => {
    const authorize = vi.fn(() => undefined);
    const { result } = await runGated(
      { authorize, execute: () => "ran" },
      { limits: { maxToolCalls: 0 } },
    );
    expect(result.code).toBe("max_tool_calls");
    expect(authorize).not.toHaveBeenCalled();
  });

  it("types its input from the schema with defineTool", async () => {
    const tool = defineTool({
      inputSchema: z.object({ argv: z.array(z.string()) }),
      authorize: (input) =>
        input.argv[0] === "rm" ? blockRun(`拒绝 ${input.argv.join(" ")}`) : undefined,
      execute: () => "ran",
    });
    const { result } = await runGated(tool);
    expect(result).toMatchObject({ status: "blocked", toolCalls: 0 });
    expect(result.reason).toContain("拒绝 rm x");
  });
});

describe("createToolRegistry's errors", () => {
  it("rejects a name a model could not spell safely, quoting it and the rule it breaks", () => {
    expect(() => createToolRegistry({ "rm -rf": noop })).toThrow(
      '工具名 "rm -rf" 无效：需以字母开头，只含字母、数字、_ . -',
    );
  });

  it.each([
    ["an object without execute", {}],
    ["undefined", undefined],
    ["an execute that is not a function", { execute: "run" }],
  ])("rejects a tool that is %s, naming it", (_, tool) => {
    expect(() => createToolRegistry({ broken: tool as never })).toThrow(
      new InvalidToolRegistryError("工具 broken 缺少 execute 函数"),
    );
  });

  it("says why a schema cannot be converted, keeping the conversion error as the cause", () => {
    let thrown: unknown;
    try {
      createToolRegistry({ t: { inputSchema: z.object({ when: z.date() }), execute: () => "" } });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidToolRegistryError);
    const { message, cause } = thrown as InvalidToolRegistryError;
    expect(cause).toBeInstanceOf(Error);
    expect(message).toBe(
      `工具 t 的 inputSchema 无法转换为 JSON Schema：${(cause as Error).message}`,
    );
    expect((cause as Error).message).not.toBe("");
  });

  it("says a schema must describe an object", () => {
    expect(() => createToolRegistry({ t: { inputSchema: z.string(), execute: () => "" } })).toThrow(
      "工具 t 的 inputSchema 必须描述一个对象（z.object）",
    );
  });
});

describe("ToolRegistry.validate's message and unknown names", () => {
  const registry = createToolRegistry({
    echo: defineTool({
      inputSchema: z.object({ text: z.string(), times: z.number() }),
      execute: () => "",
    }),
  });

  it("says which tool's input is wrong and lists each problem in the message, split by ；", () => {
    const checked = registry.validate("echo", { text: 1, times: "2" });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.error.message).toMatch(
      /^工具 echo 的输入不符合它的 inputSchema：text: [^；]+；times: [^；]+$/,
    );
  });

  it("passes the input through for a name that is not registered instead of throwing", () => {
    const input = { text: 1 };
    expect(registry.validate("missing", input)).toEqual({ ok: true, input });
  });
});

describe("toolError", () => {
  it("builds the value a tool returns for an expected failure, with no issues key without issues", () => {
    const result = toolError("not_found", "没有这个文件");
    expect(result).toStrictEqual({
      ok: false,
      error: { code: "not_found", message: "没有这个文件" },
    });
    expect(Object.keys(result.error)).toEqual(["code", "message"]);
  });

  it("keeps the issues it is given", () => {
    const issues = [{ path: "path", message: "必须是字符串" }];
    expect(toolError("invalid_input", "输入无效", issues)).toStrictEqual({
      ok: false,
      error: { code: "invalid_input", message: "输入无效", issues },
    });
  });

  it("matches ToolErrorResultSchema, which keeps each issue's path and message", () => {
    const result = toolError("invalid_input", "输入无效", [{ path: "a[0]", message: "太短" }]);
    expect(ToolErrorResultSchema.parse(result)).toEqual(result);
  });

  it.each([
    ["an issue without a path", [{ message: "太短" }]],
    ["an issue whose message is not text", [{ path: "a", message: 1 }]],
  ])("is not mistaken for a tool's error when it has %s", (_, issues) => {
    const value = { ok: false, error: { code: "invalid_input", message: "输入无效", issues } };
    expect(ToolErrorResultSchema.safeParse(value).success).toBe(false);
  });
});

describe("isToolRegistry on look-alikes", () => {
  const fn = () => undefined;
  it.each([
    ["a Map (get without validate)", new Map()],
    ["get and names without validate", { get: fn, names: [] }],
    ["validate and names without get", { validate: fn, names: [] }],
    ["get and validate without a names list", { get: fn, validate: fn, names: "a,b" }],
    ["only names", { names: [] }],
    [
      "a tool set with tools called get, validate and names",
      { get: noop, validate: noop, names: noop },
    ],
  ])("says no to %s", (_, value) => {
    expect(isToolRegistry(value as never)).toBe(false);
  });

  it("says yes to a hand-made registry (get, validate and a names list)", () => {
    const registry: ToolRegistry = {
      get: () => undefined,
      validate: (_, input) => ({ ok: true, input }),
      names: [],
      descriptions: [],
    };
    expect(isToolRegistry(registry)).toBe(true);
  });
});

describe("isBlockedOutcome", () => {
  it.each([
    ["text", "blocked"],
    ["a number", 0],
    ["undefined", undefined],
    ["null", null],
    ["a symbol", Symbol("blocked")],
    ["an object without the brand", { reason: "x" }],
  ])("says no to %s without throwing", (_, value) => {
    expect(isBlockedOutcome(value)).toBe(false);
  });

  it("says yes to what blockRun returns", () => {
    expect(isBlockedOutcome(blockRun("不允许"))).toBe(true);
  });
});

describe("inputJsonSchema", () => {
  const given = {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: { a: { type: "number", description: "First" } },
    required: ["a"],
    additionalProperties: false,
  };

  it("is what the model is shown, as given (its dialect marker left out), while inputSchema still validates", () => {
    const registry = createToolRegistry({
      sum: {
        inputSchema: z.looseObject({}).refine((value) => typeof value.a === "number", "a 需要数字"),
        inputJsonSchema: given,
        execute: () => 1,
      },
    });
    const { $schema: _dialect, ...shown } = given;
    expect(registry.descriptions[0]?.inputSchema).toEqual(shown);
    expect(registry.validate("sum", { a: 1 }).ok).toBe(true);
    expect(registry.validate("sum", { a: "1" }).ok).toBe(false);
  });

  it("must describe an object", () => {
    expect(() =>
      createToolRegistry({ bad: { inputJsonSchema: { type: "string" }, execute: () => 1 } }),
    ).toThrow(/inputJsonSchema 必须描述一个对象/);
  });

  it("is copied: changing the given object later changes nothing the model is shown", () => {
    const mutable = structuredClone(given) as Record<string, unknown>;
    const registry = createToolRegistry({ t: { inputJsonSchema: mutable, execute: () => 1 } });
    mutable.required = ["b"];
    expect(registry.descriptions[0]?.inputSchema.required).toEqual(["a"]);
  });
});
