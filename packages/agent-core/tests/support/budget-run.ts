import { z } from "zod";
import {
  type ContextBudgetOptions,
  createContextBudget,
  createRedactor,
  defineTool,
  type Message,
  type ModelRequest,
  runAgent,
  type TraceEvent,
} from "../../src/index.ts";
import { createScriptedProvider, type ScriptedTurn } from "../../src/testing/index.ts";

/** Characters of the messages' JSON: a stand-in tokenizer, exact and easy to reason about. */
export const estimateChars = (request: ModelRequest) => JSON.stringify(request.messages).length;

/** A model turn that calls read_file on `path`. */
export const read = (path: string): ScriptedTurn => ({
  action: { type: "tool_call", tool: "read_file", input: { path } },
});

export const finish: ScriptedTurn = { action: { type: "finish", summary: "完成" } };

/** A read_file tool whose result for `path` is `answer(path)`. */
export function readFileTool(answer: (path: string) => unknown) {
  return defineTool({
    inputSchema: z.object({ path: z.string() }),
    execute: ({ path }) => answer(path),
  });
}

export const lastRequest = (requests: readonly ModelRequest[]) =>
  requests[requests.length - 1] as ModelRequest;

/**
 * The context-budget tests' run: `turns`, then a finish, with read_file answering `answer(path)`,
 * under a context budget of `budget` and the run's redactor; every trace event kept.
 */
export async function runUnderBudget(
  turns: readonly ScriptedTurn[],
  answer: (path: string) => unknown,
  budget: Omit<ContextBudgetOptions, "redact">,
  maxSteps: number,
) {
  const provider = createScriptedProvider([...turns, finish]);
  const redact = createRedactor({ env: {} });
  const events: TraceEvent[] = [];
  const tools = { read_file: readFileTool(answer) };
  const result = await runAgent("读文件", provider, tools, { maxSteps }, undefined, {
    redact,
    trace: (event) => {
      events.push(event);
    },
    extensions: [createContextBudget({ redact, ...budget })],
  });
  return { result, requests: provider.requests, events };
}

/** The history of a compaction question: the model calls read_file as `callId`... */
export const readCall = (callId: string): Message => ({
  role: "assistant",
  type: "tool_call",
  callId,
  tool: "read_file",
  input: {},
});

/** ...and the call's result, `size` characters, none cut. */
export const readResult = (callId: string, size: number): Message => ({
  role: "tool",
  callId,
  tool: "read_file",
  ok: true,
  content: "x".repeat(size),
  truncated: false,
  originalLength: size,
});
