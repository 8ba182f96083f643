import { runAgent, type ToolSet } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { WEEK_01_SUMMARY, type Week01Run } from "./week-01.ts";

/** The checkpoint's environment: one tool that returns its `text`. */
const tools: ToolSet = {
  echo: { description: "返回 input.text", execute: (input) => input.text },
};

/**
 * Runs the capstone offline: the fake model calls `echo` with `{ text: "hello" }`,
 * reads the observation, then finishes. Deterministic: no network, no real model.
 */
export async function runWeek01(): Promise<Week01Run> {
  const provider = createScriptedProvider([
    { action: { type: "tool_call", tool: "echo", input: { text: "hello" } } },
    { action: { type: "finish", summary: WEEK_01_SUMMARY } },
  ]);
  const result = await runAgent("用 echo 工具说 hello，然后结束", provider, tools, {
    maxSteps: 4,
    maxRepeatedActions: 1,
  });
  return { result, requests: provider.requests };
}
