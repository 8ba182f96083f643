// A TypeScript consumer of the published packages. packaging.test.ts copies it into a project
// that installed the tarballs with npm and type-checks it there against the shipped .d.ts.
import { type Provider, type RunResult, runAgent, type ToolSet } from "@coding-agent/agent-core";
import { createScriptedProvider, type ScriptedTurn } from "@coding-agent/agent-core/testing";
import { exitCodeFor } from "@coding-agent/cli";
import { createOpenAICompatibleProvider } from "@coding-agent/providers";

const turns: ScriptedTurn[] = [{ action: { type: "finish", summary: "done" } }];
const tools: ToolSet = { echo: { execute: (input) => input.text } };
const result: RunResult = await runAgent("goal", createScriptedProvider(turns), tools, {
  maxSteps: 3,
});
export const exitCode: number = exitCodeFor(result.status);
export const model: Provider = createOpenAICompatibleProvider({ model: "any-model" });

// The declarations are real types, not `any`: each of these lines must be a type error.
// @ts-expect-error a status outside the RunStatus union
export const impossible: "exploded" = result.status;
// @ts-expect-error budgets are numbers
await runAgent("goal", createScriptedProvider(turns), tools, { maxSteps: "3" });
// @ts-expect-error an adapter needs its model name
createOpenAICompatibleProvider({ apiKey: "sk-x" });
