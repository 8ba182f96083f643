import {
  defineTool,
  type Limits,
  type Provider,
  runAgent,
  type ToolSet,
} from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { createOpenAICompatibleProvider } from "@coding-agent/providers";
import { startFakeModelServer } from "@coding-agent/providers/testing";
import { z } from "zod";
import type { ScenarioRun, Week02Runs } from "./week-02.ts";

/** The task both scenarios run. */
export const WEEK_02_GOAL = "用 echo 工具说 hello，然后结束";

/** The checkpoint's environment: `echo`, whose input must be `{ text: string }`. */
export const WEEK_02_TOOLS: ToolSet = {
  echo: defineTool({
    description: "返回 input.text",
    inputSchema: z.strictObject({ text: z.string() }),
    execute: ({ text }) => text,
  }),
};

const LIMITS: Limits = { maxSteps: 5, maxRepeatedActions: 1, maxToolErrors: 2 };

/** The conversation: a wrong input first (`text` is a number), then the corrected one. */
const WRONG_INPUT = { text: 42 };
const RIGHT_INPUT = { text: "hello" };
const FINAL_TEXT = "已用 echo 说 hello";

/** Scenario 1: the scripted fake model makes the mistake, reads invalid_input, corrects it. */
export async function runFakeScenario(): Promise<ScenarioRun> {
  const provider = createScriptedProvider([
    { action: { type: "tool_call", tool: "echo", input: WRONG_INPUT } },
    { action: { type: "tool_call", tool: "echo", input: RIGHT_INPUT } },
    { action: { type: "finish", summary: FINAL_TEXT } },
  ]);
  const result = await runAgent(WEEK_02_GOAL, provider, WEEK_02_TOOLS, LIMITS);
  return {
    name: "fake",
    result,
    sent: provider.requests.map((request) => JSON.stringify(request.messages)),
    rejected: [],
  };
}

/**
 * Scenario 2: the same conversation through the OpenAI-compatible adapter, over
 * HTTP, against a loopback server started here that checks every request as the
 * real API does. What the model was sent is read from the server's side of the wire.
 */
export async function runOpenAIScenario(): Promise<ScenarioRun> {
  const apiKey = "sk-checkpoint-week-02-loopback";
  const server = await startFakeModelServer({
    apiKey,
    script: [
      { calls: [{ name: "echo", input: WRONG_INPUT }] },
      { calls: [{ name: "echo", input: RIGHT_INPUT }] },
      { text: FINAL_TEXT },
    ],
  });
  try {
    const provider: Provider = createOpenAICompatibleProvider({
      model: "checkpoint-model",
      baseUrl: server.openaiBaseUrl,
      apiKey,
    });
    const result = await runAgent(WEEK_02_GOAL, provider, WEEK_02_TOOLS, LIMITS);
    return {
      name: "openai",
      result,
      sent: server.requests.map((request) => JSON.stringify(request.body)),
      rejected: server.rejected.map((request) => JSON.stringify(request.rejected?.body)),
    };
  } finally {
    await server.close();
  }
}

/** Both scenarios, one after the other. Deterministic: no real model, no internet. */
export async function runWeek02(): Promise<Week02Runs> {
  return { fake: await runFakeScenario(), openai: await runOpenAIScenario() };
}
