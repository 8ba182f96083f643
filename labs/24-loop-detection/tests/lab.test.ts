import {
  createLoopDetection,
  type LoopWindowEntry,
  type RunResult,
  runAgent,
  type ToolSet,
  toolError,
} from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { judgeLoopWindow } from "@lab";
import { describe, expect, it } from "vitest";

/** One call in a window: its tool, its input, what it brought back, the version after it. */
const entry = (
  tool: string,
  input: Record<string, unknown>,
  observation: string,
  version = "v1",
): LoopWindowEntry => ({ tool, input: JSON.stringify(input), observation, version });

const readSrc = entry("read_file", { path: "src.js" }, "export const add = (a, b) => a - b;");
const searchAdd = entry("search", { pattern: "add" }, "src.js:1");
const list = entry("list_files", {}, "src.js README.md");
const readme = entry("read_file", { path: "README.md" }, "# add");

/** Judges every window a run would judge, call after call: the first stop, or none. */
function firstStop(calls: readonly LoopWindowEntry[]) {
  for (let end = 1; end <= calls.length; end += 1) {
    const verdict = judgeLoopWindow(calls.slice(0, end));
    if (verdict.stop) return { at: end, reason: verdict.reason };
  }
  return { at: 0, reason: "" };
}

describe("judgeLoopWindow", () => {
  it("lets calls that each bring back something new go on", () => {
    const paging = [1, 11, 21, 31].map((start) =>
      entry("read_file", { path: "big.txt", startLine: start }, `line ${start} …`),
    );
    expect(firstStop(paging).at, "翻页读同一个文件：输入和观察每次都不同").toBe(0);
  });

  it("stops at the third call that brings back nothing new (A-A-A-A)", () => {
    expect(judgeLoopWindow([readSrc, readSrc, readSrc]).stop, "同一个 read_file 连续三次").toBe(
      false,
    );
    const verdict = judgeLoopWindow([readSrc, readSrc, readSrc, readSrc]);
    expect(verdict.stop, "同一个 read_file 连续四次：后三次都没有新观察").toBe(true);
    const reason = verdict.stop ? verdict.reason : "";
    expect(reason, "原因点名那次调用").toContain('read_file {"path":"src.js"}');
    expect(reason, "同一个调用自己重复，不是 A → B 的循环").not.toContain("→");
  });

  it("stops an A-B-A-B cycle at its fourth call and names it", () => {
    const stop = firstStop([readSrc, searchAdd, readSrc, searchAdd, readSrc, searchAdd]);
    expect(stop.at, "read_file、search 交替：第几次调用时停下").toBe(4);
    expect(stop.reason, "原因按顺序写出这一轮").toContain(
      'read_file {"path":"src.js"} → search {"pattern":"add"}',
    );
  });

  it("finds cycles of three and of four calls too", () => {
    const three = firstStop([list, readSrc, searchAdd, list, readSrc, searchAdd, list]);
    expect(three.at, "A-B-C-A-B-C：第几次调用时停下").toBe(6);
    expect(three.reason, "三次一轮的循环").toContain("list_files {} → read_file");
    const four = firstStop([list, readSrc, readme, searchAdd, list, readSrc, readme, searchAdd]);
    expect(four.at, "A-B-C-D-A-B-C-D：第几次调用时停下").toBe(8);
    expect(four.reason, "四次一轮的循环").toContain(
      'read_file {"path":"README.md"} → search {"pattern":"add"}',
    );
  });

  it("lets polling go on while its output changes", () => {
    const polling = ["queued", "running 10%", "running 50%", "running 90%", "done"].map((out) =>
      entry("run_command", { argv: ["cat", "status"] }, out),
    );
    expect(firstStop(polling).at, "轮询同一个命令，输出每次都在变").toBe(0);
  });

  it("lets the same tool go on with other inputs, though each finds nothing", () => {
    const searches = ["sum", "total", "add", "plus", "accumulate"].map((pattern) =>
      entry("search", { pattern }, "没有匹配"),
    );
    expect(firstStop(searches).at, "搜不同的名字，每次都没找到").toBe(0);
  });

  it("counts a repeat at another workspace version as progress", () => {
    const generate = ["v1", "v2", "v3", "v4", "v5"].map((version) =>
      entry("run_command", { argv: ["node", "new-migration.js"] }, "已生成", version),
    );
    expect(firstStop(generate).at, "每次都多生成一个文件、输出同一行的命令").toBe(0);
    const fix = [
      entry("run_tests", {}, "1 failed", "v1"),
      entry("edit_file", { old: "a - b", new: "a + b" }, "ok", "v2"),
      entry("run_tests", {}, "1 failed", "v2"),
      entry("edit_file", { old: "x * 0", new: "x * 1" }, "ok", "v3"),
      entry("run_tests", {}, "0 failed", "v3"),
    ];
    expect(firstStop(fix).at, "测试 → 编辑 → 测试").toBe(0);
  });

  it("does not call a repeat stalled when something new came back in between", () => {
    const sleepPolling = ["0%", "20%", "40%", "60%", "80%"].flatMap((out) => [
      entry("run_command", { argv: ["cat", "status"] }, out),
      entry("sleep", { ms: 1000 }, "slept"),
    ]);
    expect(firstStop(sleepPolling).at, "两次查看状态之间 sleep：sleep 每次都一样").toBe(0);
    const rereading = [
      readSrc,
      list,
      readSrc,
      entry("search", { pattern: "a" }, "src.js:1"),
      readSrc,
      entry("search", { pattern: "b" }, "src.js:1"),
      readSrc,
    ];
    expect(firstStop(rereading).at, "在新的调用之间反复回看同一个文件").toBe(0);
  });
});

/** A tiny workspace in memory: its version changes with the files' contents. */
function workspace(files: Record<string, string>, outputs: readonly string[] = [""]) {
  const state = new Map(Object.entries(files));
  let commands = 0;
  const version = () => JSON.stringify([...state.entries()].sort());
  const text = (value: unknown) => String(value ?? "");
  const tools: ToolSet = {
    read_file: {
      execute: ({ path, startLine }) => {
        const lines = (state.get(text(path)) ?? "").split("\n");
        const from = Number(startLine ?? 1) - 1;
        return { content: lines.slice(from, from + 10).join("\n") };
      },
    },
    search: {
      execute: ({ pattern }) =>
        [...state.keys()].filter((path) => state.get(path)?.includes(text(pattern))),
    },
    edit_file: {
      execute: ({ path, old, new: replacement }) => {
        const content = state.get(text(path)) ?? "";
        if (!content.includes(text(old))) return toolError("not_found_text", "找不到要替换的文本");
        state.set(text(path), content.replace(text(old), text(replacement)));
        return { edited: path };
      },
    },
    run_tests: {
      execute: () => {
        const failed = state.get("src.js")?.includes("a - b") ? 1 : 0;
        return { passed: 1 - failed, failed };
      },
    },
    run_command: {
      execute: () => ({ exitCode: 0, stdout: outputs[Math.min(commands++, outputs.length - 1)] }),
    },
  };
  return { tools, version };
}

type Call = readonly [tool: string, input: Record<string, unknown>];

/** A scripted model making these calls, then a finish, with your judge in the detector. */
function runCalls(
  calls: readonly Call[],
  files: Record<string, string>,
  outputs?: readonly string[],
): Promise<RunResult> {
  const { tools, version } = workspace(files, outputs);
  const provider = createScriptedProvider([
    ...calls.map(([tool, input]) => ({ action: { type: "tool_call", tool, input } })),
    { action: { type: "finish", summary: "完成" } },
  ]);
  const detector = createLoopDetection({ version, judge: judgeLoopWindow });
  return runAgent("按脚本调用工具", provider, tools, { maxSteps: 50 }, undefined, {
    extensions: [detector],
  });
}

const buggy = { "src.js": "export const add = (a, b) => a - b;\n", "README.md": "# add\n" };
const big = { "big.txt": Array.from({ length: 40 }, (_, n) => `line ${n + 1}`).join("\n") };

describe("judgeLoopWindow inside runAgent", () => {
  it("lets legitimate repetition finish: paging, polling with changing output, test → edit → test", async () => {
    const cases: [string, Call[], Record<string, string>, string[]?][] = [
      [
        "翻页读取",
        [1, 11, 21, 31].map((n) => ["read_file", { path: "big.txt", startLine: n }]),
        big,
      ],
      [
        "轮询输出在变的命令",
        Array.from({ length: 6 }, () => ["run_command", { argv: ["cat", "status"] }] as Call),
        {},
        ["queued", "10%", "50%", "90%", "done", "done!"],
      ],
      [
        "测试 → 编辑 → 测试",
        [
          ["run_tests", {}],
          ["edit_file", { path: "src.js", old: "a - b", new: "a + b" }],
          ["run_tests", {}],
        ],
        buggy,
      ],
    ];
    for (const [name, calls, files, outputs] of cases) {
      const result = await runCalls(calls, files, outputs);
      expect({ status: result.status, code: result.code }, name).toEqual({
        status: "completed",
        code: "finished",
      });
      expect(result.toolCalls, `${name}：每次调用都执行了`).toBe(calls.length);
    }
  });

  it("stops an A-B-A-B loop with loop_detected, naming the cycle", async () => {
    const round: Call[] = [
      ["read_file", { path: "src.js" }],
      ["search", { pattern: "add" }],
    ];
    const result = await runCalls([...round, ...round, ...round], buggy);
    expect({ status: result.status, code: result.code }, "read_file、search 交替三轮").toEqual({
      status: "budget_exceeded",
      code: "loop_detected",
    });
    expect(result.toolCalls, "第二轮结束就停下").toBe(4);
    expect(result.reason, "原因写出这一轮").toContain("read_file");
    expect(result.reason, "原因写出这一轮").toContain("→ search");
  });

  it("stops test → failing edit → test at the same workspace version", async () => {
    const round: Call[] = [
      ["run_tests", {}],
      ["edit_file", { path: "src.js", old: "no such text", new: "x" }],
    ];
    const result = await runCalls([...round, ...round, ...round], buggy);
    expect(result.code, "编辑每次都失败、工作区没变，测试结果也没变").toBe("loop_detected");
    expect(result.toolCalls, "第二轮结束就停下").toBe(4);
  });
});
