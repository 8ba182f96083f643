import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { runAgent, type Tool } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { observationsOf, withExpectedErrors } from "@lab";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let workspace = "";

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "lab-09-"));
  await writeFile(path.join(workspace, "notes.md"), "# 笔记\n");
  await mkdir(path.join(workspace, "src"));
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** A real file tool: it throws whatever node:fs throws. */
const readFileTool: Tool = {
  description: "读取工作区里的文件",
  execute: (input) => readFile(path.join(workspace, String(input.path)), "utf8"),
};

const call = (file: string, callId: string) => ({
  action: { type: "tool_call", tool: "read_file", input: { path: file }, callId },
});
const finish = { action: { type: "finish", summary: "完成" } };

describe("withExpectedErrors", () => {
  it("returns the tool's value unchanged when it succeeds", async () => {
    const tool = withExpectedErrors(readFileTool);
    await expect(tool.execute({ path: "notes.md" }, new AbortController().signal)).resolves.toBe(
      "# 笔记\n",
    );
  });

  it.each([
    ["a missing file", "not_found", "missing.md"],
    ["a directory", "is_directory", "src"],
  ])("returns %s as an error result with code %s instead of throwing", async (_, code, file) => {
    const tool = withExpectedErrors(readFileTool);
    let outcome: unknown;
    try {
      outcome = await tool.execute({ path: file }, new AbortController().signal);
    } catch (error) {
      outcome = `抛出了异常：${String(error)}`;
    }
    expect(outcome).toMatchObject({ ok: false, error: { code, message: expect.any(String) } });
  });

  it("still throws an unexpected error", async () => {
    const buggy = withExpectedErrors({
      execute: () => {
        throw new TypeError("Cannot read properties of undefined");
      },
    });
    await expect(buggy.execute({}, new AbortController().signal)).rejects.toThrow(TypeError);
  });
});

describe("runAgent with expected errors written back", () => {
  it("writes not_found back as an observation; the model reads another file and the run completes", async () => {
    const provider = createScriptedProvider([
      call("README.md", "c1"),
      call("notes.md", "c2"),
      finish,
    ]);
    const result = await runAgent(
      "读笔记",
      provider,
      { read_file: withExpectedErrors(readFileTool) },
      { maxSteps: 5 },
    );
    expect(result.status, "预期内的错误不应结束运行").toBe("completed");
    expect(observationsOf(provider.requests[1]?.messages ?? [])).toEqual([
      {
        callId: "c1",
        tool: "read_file",
        ok: false,
        error: { code: "not_found", message: expect.stringContaining("ENOENT") },
      },
    ]);
    expect(observationsOf(result.messages).map((o) => [o.callId, o.ok])).toEqual([
      ["c1", false],
      ["c2", true],
    ]);
  });

  it("still fails the run on an unexpected throw", async () => {
    const provider = createScriptedProvider([call("notes.md", "c1"), finish]);
    const result = await runAgent(
      "读笔记",
      provider,
      {
        read_file: withExpectedErrors({
          execute: () => {
            throw new RangeError("bug in the tool");
          },
        }),
      },
      { maxSteps: 5 },
    );
    expect(result).toMatchObject({ status: "failed", code: "tool_error" });
  });

  it("stops budget_exceeded when the model keeps getting errors (maxToolErrors)", async () => {
    const provider = createScriptedProvider([
      call("a.md", "c1"),
      call("b.md", "c2"),
      call("c.md", "c3"),
      finish,
    ]);
    const result = await runAgent(
      "读笔记",
      provider,
      { read_file: withExpectedErrors(readFileTool) },
      { maxSteps: 10, maxToolErrors: 3 },
    );
    expect(
      result,
      `模型一直收到错误时，运行应当以 budget_exceeded / max_tool_errors 停下；你的运行以 ${result.status} / ${result.code} 结束`,
    ).toMatchObject({ status: "budget_exceeded", code: "max_tool_errors", steps: 3 });
    expect(observationsOf(result.messages).map((o) => (o.ok ? "ok" : o.error.code))).toEqual([
      "not_found",
      "not_found",
      "not_found",
    ]);
  });
});

describe("observationsOf", () => {
  it("pairs every result with its call by callId, in the order of the calls", async () => {
    const provider = createScriptedProvider([call("notes.md", "x"), call("notes.md", "y"), finish]);
    const result = await runAgent("读两次", provider, { read_file: readFileTool }, { maxSteps: 5 });
    expect(observationsOf(result.messages)).toEqual([
      { callId: "x", tool: "read_file", ok: true, value: "# 笔记\n" },
      { callId: "y", tool: "read_file", ok: true, value: "# 笔记\n" },
    ]);
  });

  it("refuses a history where a call has no result", () => {
    expect(() =>
      observationsOf([
        { role: "user", content: "任务" },
        { role: "assistant", type: "tool_call", callId: "c1", tool: "read_file", input: {} },
      ]),
    ).toThrow(/c1/);
  });
});
