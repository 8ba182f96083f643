/**
 * Trace files for the report's tests, written by the real agent-core loop: a scripted run
 * whose sink adds `runId` (and, when asked, a `costUsd` per model call and for the run, as
 * the cost feature writes them), one JSON line per event, as `trace.jsonl` holds them.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  defineTool,
  type RunExtension,
  runAgent,
  type TraceEvent,
  toolError,
} from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { z } from "zod";

/** Texts that break a page or a terminal when shown unescaped. */
export const HOSTILE = {
  script: "<script>window.__pwned=1</script>",
  textarea: '</textarea><img src=x onerror="window.__pwned=2">',
  attribute: '" onmouseover="window.__pwned=3" data-x="',
  markup: "</pre></details><h1 id=injected>注入</h1>",
  remote:
    '<img src="https://example.invalid/track.png"><link rel=stylesheet href="https://example.invalid/x.css">',
  terminal: "\u001b[2J\u001b[31m清屏\u202e",
} as const;

/** What the hostile tool prints: every hostile text, on its own line. */
export const HOSTILE_OUTPUT = Object.values(HOSTILE).join("\n");

export const FIXTURE_GOAL = '修复 sum 函数 <b>"加法"</b>';

const turns = [
  {
    action: { type: "tool_call", tool: "read_file", input: { path: "src/sum.js" } },
    usage: { inputTokens: 1200, outputTokens: 40 },
  },
  {
    action: { type: "tool_call", tool: "run_tests", input: {} },
    usage: { inputTokens: 1500, outputTokens: 30 },
  },
  { action: { type: "finish", summary: "改好了" }, usage: { inputTokens: 1600, outputTokens: 20 } },
  {
    action: { type: "finish", summary: "测试过了，改好了" },
    usage: { inputTokens: 1700, outputTokens: 25 },
  },
];

/** USD per token in the fixture: $2 / M input, $8 / M output. */
const price = (usage: { inputTokens: number; outputTokens: number } | undefined) =>
  usage === undefined ? null : (usage.inputTokens * 2 + usage.outputTokens * 8) / 1_000_000;

/**
 * The trace lines of a four-step run: `read_file` answers `HOSTILE_OUTPUT`, `run_tests`
 * fails, the first finish is rejected, the second accepted (status completed). With `cost`,
 * `model_completed` and `run_finished` carry `costUsd`; without, neither does.
 */
export async function fixtureTraceLines(options: {
  readonly runId: string;
  readonly cost?: boolean;
}): Promise<string[]> {
  const lines: string[] = [];
  let clock = 0;
  let rejected = false;
  const gate: RunExtension = {
    name: "gate",
    onFinish: () => {
      if (rejected) return undefined;
      rejected = true;
      return { kind: "reject", reasons: ["no_test_evidence"], message: "还没有通过的测试" };
    },
  };
  await runAgent(
    FIXTURE_GOAL,
    createScriptedProvider(turns),
    {
      read_file: defineTool({
        inputSchema: z.object({ path: z.string() }),
        execute: () => HOSTILE_OUTPUT,
      }),
      run_tests: defineTool({
        inputSchema: z.object({}),
        execute: () => toolError("tests_failed", "1 个测试失败：sum(1, 2) 应为 3"),
      }),
    },
    { maxSteps: 10 },
    undefined,
    {
      // A fixed clock: each reading 5 ms after the last, so durations are the same every run.
      clock: () => {
        clock += 5;
        return clock;
      },
      extensions: [gate],
      trace: (event: TraceEvent) => {
        let body: Record<string, unknown> = { ...event };
        if (options.cost === true && event.type === "model_completed") {
          body = { ...body, costUsd: price(event.usage) };
        }
        if (options.cost === true && event.type === "run_finished") {
          body = { ...body, costUsd: price(event.usage) };
        }
        const { seq, atMs, type, ...rest } = body;
        lines.push(JSON.stringify({ seq, atMs, runId: options.runId, type, ...rest }));
      },
    },
  );
  return lines;
}

/** Writes `lines` as the trace of `runId` under `home`; returns the file. */
export async function writeRunTrace(
  home: string,
  runId: string,
  lines: readonly string[],
): Promise<string> {
  const dir = join(home, "runs", runId);
  await mkdir(dir, { recursive: true });
  const file = join(dir, "trace.jsonl");
  await writeFile(file, lines.map((line) => `${line}\n`).join(""));
  return file;
}
