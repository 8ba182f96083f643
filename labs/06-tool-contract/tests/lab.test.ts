import { runAgent, type ToolSet } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { createContractRegistry, describeTool, validateToolInput, z } from "@lab";
import { describe, expect, it, vi } from "vitest";

/** Calls validateToolInput; a throw becomes a failed assertion that says so. */
function check(tool: string, schema: Parameters<typeof validateToolInput>[1], input: object) {
  let outcome: ReturnType<typeof validateToolInput> | undefined;
  expect(() => {
    outcome = validateToolInput(tool, schema, input as Parameters<typeof validateToolInput>[2]);
  }, "非法输入应当作为结果返回，而不是抛出异常").not.toThrow();
  return outcome as ReturnType<typeof validateToolInput>;
}

const ReadLines = z.strictObject({
  path: z.string().min(1),
  startLine: z.int().min(1).default(1),
  endLine: z.int().min(1).optional(),
});

describe("validateToolInput", () => {
  it("accepts input that matches the schema", () => {
    expect(check("read_lines", ReadLines, { path: "a.ts", startLine: 3 })).toEqual({
      ok: true,
      input: { path: "a.ts", startLine: 3 },
    });
  });

  it("hands the tool the parsed input, with the schema's defaults filled in", () => {
    expect(check("read_lines", ReadLines, { path: "a.ts" })).toEqual({
      ok: true,
      input: { path: "a.ts", startLine: 1 },
    });
  });

  it("rejects a wrong type as invalid_input, naming the path", () => {
    const checked = check("read_lines", ReadLines, { path: 42 });
    expect(checked).toMatchObject({
      ok: false,
      error: {
        code: "invalid_input",
        issues: [{ path: "path", message: "Invalid input: expected string, received number" }],
      },
    });
  });

  it("reports every problem at once, not only the first", () => {
    const checked = check("read_lines", ReadLines, {
      path: "",
      startLine: 0,
      mode: "w",
    });
    const paths = checked.ok ? [] : (checked.error.issues ?? []).map((issue) => issue.path);
    expect(paths, "三个问题：path 为空、startLine < 1、多余的 mode").toEqual([
      "path",
      "startLine",
      "(root)",
    ]);
  });

  it("names a nested problem by its full path, like edits[1].old", () => {
    const Edits = z.object({ edits: z.array(z.object({ path: z.string(), old: z.string() })) });
    const checked = check("apply_edits", Edits, {
      edits: [
        { path: "a.ts", old: "x" },
        { path: "b.ts", old: 7 },
      ],
    });
    expect(checked.ok ? [] : checked.error.issues).toEqual([
      { path: "edits[1].old", message: "Invalid input: expected string, received number" },
    ]);
  });

  it("says in its message which tool was called wrongly and what is wrong", () => {
    const checked = check("read_lines", ReadLines, {});
    expect(checked.ok ? "" : checked.error.message).toMatch(/read_lines[\s\S]*path/);
  });
});

describe("describeTool", () => {
  it("gives the model the JSON Schema of the tool's input", () => {
    const description = describeTool("read_lines", {
      description: "读取文件的若干行",
      inputSchema: ReadLines,
      execute: () => "",
    });
    expect(description).toEqual({
      name: "read_lines",
      description: "读取文件的若干行",
      inputSchema: {
        type: "object",
        properties: {
          path: { type: "string", minLength: 1 },
          startLine: expect.objectContaining({ type: "integer", minimum: 1, default: 1 }),
          endLine: expect.objectContaining({ type: "integer", minimum: 1 }),
        },
        required: ["path"],
        additionalProperties: false,
      },
    });
  });
});

describe("runAgent with the contract registry", () => {
  const readLinesTool = (execute: (input: { path: string; startLine: number }) => unknown) =>
    ({
      read_lines: { description: "读取文件的若干行", inputSchema: ReadLines, execute },
    }) as unknown as ToolSet;

  it("writes invalid_input back without running the tool; the model corrects itself and the run completes", async () => {
    const execute = vi.fn(({ path }: { path: string }) => `内容：${path}`);
    const provider = createScriptedProvider([
      { action: { type: "tool_call", tool: "read_lines", input: { file: "a.ts" }, callId: "c1" } },
      { action: { type: "tool_call", tool: "read_lines", input: { path: "a.ts" }, callId: "c2" } },
      { action: { type: "finish", summary: "读完了" } },
    ]);
    const result = await runAgent(
      "读 a.ts",
      provider,
      createContractRegistry(readLinesTool(execute)),
      { maxSteps: 5 },
    );

    expect(result, "改正输入之后运行应当完成").toMatchObject({ status: "completed", toolCalls: 1 });
    expect(execute, "非法输入不能进入 execute").toHaveBeenCalledTimes(1);
    expect(
      provider.requests[1]?.messages.at(-1),
      "第二轮请求里应有 invalid_input 结果",
    ).toMatchObject({
      role: "tool",
      callId: "c1",
      ok: false,
      error: { code: "invalid_input" },
    });
  });

  it("runs the tool with the parsed input", async () => {
    const execute = vi.fn(() => "ok");
    const provider = createScriptedProvider([
      { action: { type: "tool_call", tool: "read_lines", input: { path: "a.ts" } } },
      { action: { type: "finish", summary: "好" } },
    ]);
    await runAgent("读", provider, createContractRegistry(readLinesTool(execute)), {
      maxSteps: 5,
    });
    expect(execute).toHaveBeenCalledWith({ path: "a.ts", startLine: 1 }, expect.any(AbortSignal));
  });

  it("tells the model each tool's input schema in every request", async () => {
    const provider = createScriptedProvider([{ action: { type: "finish", summary: "好" } }]);
    await runAgent("看看工具", provider, createContractRegistry(readLinesTool(() => "")), {
      maxSteps: 1,
    });
    expect(provider.requests[0]?.tools[0]).toMatchObject({
      name: "read_lines",
      inputSchema: { required: ["path"] },
    });
  });

  it("finds no tool for a name that only Object.prototype has", () => {
    const registry = createContractRegistry(readLinesTool(() => ""));
    expect(["constructor", "toString", "__proto__"].map((name) => registry.get(name))).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});
