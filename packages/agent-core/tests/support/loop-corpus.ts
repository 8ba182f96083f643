/**
 * The labelled corpus of lesson 24's loop detection: legitimate repetitive runs that
 * must finish (`legitimate`) and loops that must stop `loop_detected` (`loop`), each a
 * scripted model over a small in-memory workspace. `runCorpusCase` runs one through the
 * real `runAgent`; the tests and `bench/loop-corpus.ts` (false positives, misses) share it.
 */

import { z } from "zod";
import {
  createLoopDetection,
  defineTool,
  type RunResult,
  runAgent,
  type ToolSet,
  toolError,
} from "../../src/index.ts";
import { createScriptedProvider } from "../../src/testing/index.ts";

/** One call of a scripted run: a tool and its input. */
export type Call = readonly [tool: string, input: Record<string, unknown>];

export interface CorpusCase {
  readonly name: string;
  readonly label: "legitimate" | "loop";
  readonly files: Readonly<Record<string, string>>;
  /** The model's replies in order, one call each; a finish follows the last. */
  readonly calls: readonly Call[];
  /** Outputs of `run_command`, one per call in turn (the last repeats). */
  readonly commandOutputs?: readonly string[];
  /** A loop the default (no `version`) can see only through read-only tools. */
  readonly needsVersion?: boolean;
}

const read = (path: string, startLine?: number, endLine?: number): Call => [
  "read_file",
  {
    path,
    ...(startLine === undefined ? {} : { startLine }),
    ...(endLine === undefined ? {} : { endLine }),
  },
];
const write = (path: string, content: string): Call => ["write_file", { path, content }];
const edit = (path: string, old: string, replacement: string): Call => [
  "edit_file",
  { path, old, new: replacement },
];
const list: Call = ["list_files", {}];
const search = (pattern: string): Call => ["search", { pattern }];
const tests: Call = ["run_tests", {}];
const command = (...argv: string[]): Call => ["run_command", { argv }];

const longFile = Array.from({ length: 40 }, (_, index) => `line ${index + 1}`).join("\n");
const buggy = { "src.js": "export const add = (a, b) => a - b;\n", "README.md": "# add\n" };

export const CORPUS: readonly CorpusCase[] = [
  // Legitimate: the same tool again and again, each time bringing something new.
  {
    name: "paging read_file with other line ranges",
    label: "legitimate",
    files: { "big.txt": longFile },
    calls: [
      read("big.txt", 1, 10),
      read("big.txt", 11, 20),
      read("big.txt", 21, 30),
      read("big.txt", 31, 40),
    ],
  },
  {
    name: "polling a command whose output changes",
    label: "legitimate",
    files: {},
    calls: Array.from({ length: 6 }, () => command("cat", "status")),
    commandOutputs: ["queued", "running 10%", "running 50%", "running 90%", "done", "done!"],
  },
  {
    name: "test → edit → test",
    label: "legitimate",
    files: buggy,
    calls: [tests, edit("src.js", "a - b", "a + b"), tests],
  },
  {
    name: "test → edit → test → edit → test (two fixes)",
    label: "legitimate",
    files: { "src.js": "a - b; x * 0;\n" },
    calls: [
      tests,
      edit("src.js", "a - b", "a + b"),
      tests,
      edit("src.js", "x * 0", "x * 1"),
      tests,
    ],
  },
  {
    name: "list then read then list after a write",
    label: "legitimate",
    files: buggy,
    calls: [list, read("src.js"), write("test.js", "ok"), list, read("src.js"), list],
  },
  {
    name: "the same search at two workspace versions",
    label: "legitimate",
    files: buggy,
    calls: [search("a - b"), edit("src.js", "a - b", "a + b"), search("a - b"), search("a + b")],
  },
  {
    name: "a cycle whose observation changes one byte each round",
    label: "legitimate",
    files: {},
    calls: Array.from({ length: 4 }, () => [command("cat", "log"), list] as const).flat(),
    commandOutputs: ["tick 1", "tick 2", "tick 3", "tick 4"],
  },
  {
    name: "reading the same file again after editing it, three times",
    label: "legitimate",
    files: { "a.txt": "v0" },
    calls: [
      read("a.txt"),
      write("a.txt", "v1"),
      read("a.txt"),
      write("a.txt", "v2"),
      read("a.txt"),
      write("a.txt", "v3"),
      read("a.txt"),
    ],
  },
  {
    name: "one re-read of a file (A-B-A) is not a loop",
    label: "legitimate",
    files: buggy,
    calls: [read("src.js"), read("README.md"), read("src.js"), search("add"), list],
  },
  {
    name: "two repeats of one call, far apart",
    label: "legitimate",
    files: buggy,
    calls: [list, read("src.js"), list, read("README.md"), search("add"), list],
  },
  {
    name: "A-B-A-B with a write in between each round",
    label: "legitimate",
    files: { "n.txt": "0" },
    calls: [
      list,
      read("n.txt"),
      write("n.txt", "1"),
      list,
      read("n.txt"),
      write("n.txt", "2"),
      list,
      read("n.txt"),
    ],
  },
  {
    name: "a build that prints the same line while the workspace changes",
    label: "legitimate",
    files: { "a.txt": "x" },
    calls: [
      command("make"),
      write("a.txt", "y"),
      command("make"),
      write("a.txt", "z"),
      command("make"),
    ],
    commandOutputs: ["built"],
  },
  {
    name: "polling with a sleep between status checks whose output changes",
    label: "legitimate",
    files: {},
    calls: Array.from(
      { length: 5 },
      () => [command("cat", "status"), ["sleep", { ms: 1 }] as Call] as const,
    ).flat(),
    commandOutputs: ["0%", "20%", "40%", "60%", "80%"],
  },
  {
    name: "a window's worth of different reads, then the first again",
    label: "legitimate",
    files: Object.fromEntries(
      Array.from({ length: 13 }, (_, index) => [`f${index}.txt`, `${index}`]),
    ),
    calls: [
      ...Array.from({ length: 13 }, (_, index) => read(`f${index}.txt`)),
      read("f0.txt"),
      read("f1.txt"),
      read("f0.txt"),
    ],
  },
  // Loops: nothing new comes back.
  {
    name: "A-A-A-A with the same observation",
    label: "loop",
    files: buggy,
    calls: Array.from({ length: 6 }, () => read("src.js")),
  },
  {
    name: "A-B-A-B",
    label: "loop",
    files: buggy,
    calls: Array.from({ length: 4 }, () => [read("src.js"), search("add")] as const).flat(),
  },
  {
    name: "A-B-C-A-B-C",
    label: "loop",
    files: buggy,
    calls: Array.from({ length: 3 }, () => [list, read("src.js"), search("add")] as const).flat(),
  },
  {
    name: "A-B-C-D × 2",
    label: "loop",
    files: buggy,
    calls: Array.from(
      { length: 3 },
      () => [list, read("src.js"), read("README.md"), search("add")] as const,
    ).flat(),
  },
  {
    name: "one file re-read between new calls (A-x-A-y-A-z-A)",
    label: "legitimate",
    files: buggy,
    calls: [
      read("src.js"),
      list,
      read("src.js"),
      search("a"),
      read("src.js"),
      search("b"),
      read("src.js"),
      search("c"),
    ],
  },
  {
    name: "A-A-B-A-A-B (the same read twice in a row, again and again)",
    label: "loop",
    files: buggy,
    calls: Array.from({ length: 4 }, () => [read("src.js"), read("src.js"), list] as const).flat(),
  },
  {
    name: "test → failing edit → test, over and over",
    label: "loop",
    files: buggy,
    calls: Array.from(
      { length: 4 },
      () => [tests, edit("src.js", "no such text", "x")] as const,
    ).flat(),
    needsVersion: true,
  },
  {
    name: "polling a command whose output never changes",
    label: "loop",
    files: {},
    calls: Array.from({ length: 6 }, () => command("cat", "status")),
    commandOutputs: ["running"],
    needsVersion: true,
  },
];

/** A tiny workspace: files in memory, a version that changes with their contents. */
function createFakeWorkspace(files: Readonly<Record<string, string>>, outputs: readonly string[]) {
  const state = new Map(Object.entries(files));
  let commands = 0;
  const version = () =>
    JSON.stringify([...state.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const text = z.string();
  const tools: ToolSet = {
    read_file: defineTool({
      inputSchema: z.object({
        path: text,
        startLine: z.int().optional(),
        endLine: z.int().optional(),
      }),
      execute: ({ path, startLine, endLine }) => {
        const content = state.get(path);
        if (content === undefined) return toolError("not_found", `文件不存在：${path}`);
        const lines = content.split("\n");
        return { content: lines.slice((startLine ?? 1) - 1, endLine ?? lines.length).join("\n") };
      },
    }),
    write_file: defineTool({
      inputSchema: z.object({ path: text, content: text }),
      execute: ({ path, content }) => {
        state.set(path, content);
        return { written: path, bytes: content.length };
      },
    }),
    edit_file: defineTool({
      inputSchema: z.object({ path: text, old: text, new: text }),
      execute: (input) => {
        const content = state.get(input.path) ?? "";
        if (!content.includes(input.old)) return toolError("not_found_text", "找不到要替换的文本");
        state.set(input.path, content.replace(input.old, input.new));
        return { edited: input.path };
      },
    }),
    list_files: defineTool({
      inputSchema: z.object({}),
      execute: () => ({ files: [...state.keys()].sort() }),
    }),
    search: defineTool({
      inputSchema: z.object({ pattern: text }),
      execute: ({ pattern }) => ({
        matches: [...state.entries()]
          .filter(([, content]) => content.includes(pattern))
          .map(([path]) => path),
      }),
    }),
    run_tests: defineTool({
      inputSchema: z.object({}),
      execute: () => {
        const failed = [...state.values()].some((content) => /a - b|\* 0/.test(content)) ? 1 : 0;
        return { passed: 1 - failed, failed };
      },
    }),
    sleep: defineTool({ inputSchema: z.object({ ms: z.int() }), execute: () => "slept" }),
    run_command: defineTool({
      inputSchema: z.object({ argv: z.array(text) }),
      execute: () => {
        const stdout = outputs[Math.min(commands, outputs.length - 1)] ?? "";
        commands += 1;
        return { exitCode: 0, stdout, stderr: "" };
      },
    }),
  };
  return { tools, version };
}

/** Runs one case through `runAgent`, with or without the workspace version injected. */
export function runCorpusCase(
  corpusCase: CorpusCase,
  mode: { readonly withVersion: boolean },
): Promise<RunResult> {
  const workspace = createFakeWorkspace(corpusCase.files, corpusCase.commandOutputs ?? [""]);
  const provider = createScriptedProvider([
    ...corpusCase.calls.map(([tool, input]) => ({ action: { type: "tool_call", tool, input } })),
    { action: { type: "finish", summary: "完成" } },
  ]);
  const detector = createLoopDetection({
    // The CLI's defaults: `--loop-window 12`, `--max-repeated-actions 3`.
    maxRepeatedActions: 3,
    ...(mode.withVersion ? { version: workspace.version } : {}),
  });
  return runAgent("按脚本调用工具", provider, workspace.tools, { maxSteps: 100 }, undefined, {
    extensions: [detector],
    redact: (text) => text,
  });
}

/** Whether a case's outcome is what its label says. */
export function judged(
  corpusCase: CorpusCase,
  result: RunResult,
): "ok" | "false_positive" | "miss" {
  if (corpusCase.label === "legitimate")
    return result.status === "completed" ? "ok" : "false_positive";
  return result.code === "loop_detected" ? "ok" : "miss";
}
