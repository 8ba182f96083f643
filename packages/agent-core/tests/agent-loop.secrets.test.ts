import { afterEach, describe, expect, it } from "vitest";
import { type RunOptions, runAgent } from "../src/agent-loop.ts";
import { createScriptedProvider, type ScriptedTurn } from "../src/testing/index.ts";
import type { ToolInput, ToolSet } from "../src/tools.ts";
import type { TraceEvent } from "../src/trace.ts";
import { call, say } from "./fixtures/actions.ts";
import { SECRET_CORPUS, secretCore } from "./fixtures/secret-corpus.ts";

const OPENAI = `sk-proj-${"Pr0jKeyAbCdEf".repeat(4)}`;
const GITHUB = `ghp_${"G1tHubT0ken".repeat(4)}`;
const AWS = "AKIAIOSFODNN7EXAMPLE";
const BEARER = "Bearer abc.def-ghi_jkl-mno";

const finish = (summary: string) => ({ type: "finish", summary });

/** Every channel a run writes to: the result, each request the provider saw, the trace. */
async function channels(
  goal: string,
  turns: ScriptedTurn[],
  tools: ToolSet,
  options: RunOptions = {},
): Promise<{ everything: string }> {
  const events: TraceEvent[] = [];
  const provider = createScriptedProvider(turns);
  const result = await runAgent(goal, provider, tools, { maxSteps: 10 }, undefined, {
    ...options,
    trace: (event) => {
      events.push(event);
    },
  });
  const requests = provider.requests.map((request) => ({
    task: request.task,
    messages: [...request.messages],
  }));
  const everything = JSON.stringify({
    result: { ...result, messages: [...result.messages] },
    requests,
    events,
  });
  return { everything };
}

function expectNoSecret(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) expect(text, `leaked ${secret}`).not.toContain(secretCore(secret));
}

describe("runAgent keeps secrets out of every channel", () => {
  it("masks a secret the model writes into a finish summary, in the result and the trace", async () => {
    const { everything } = await channels("任务", [{ action: finish(`用了 ${OPENAI} 完成`) }], {});
    expectNoSecret(everything, [OPENAI]);
    expect(everything).toContain("[REDACTED:openai-key]");
  });

  it("masks a secret the model writes into a message before the next request", async () => {
    const { everything } = await channels(
      "任务",
      [{ action: say(`token ${GITHUB} and ${BEARER}`) }, { action: finish("ok") }],
      {},
    );
    expectNoSecret(everything, [GITHUB]);
    expect(everything).not.toContain("abc.def-ghi_jkl-mno");
  });

  it("masks secrets in a tool_call's input values, input keys and callId", async () => {
    const seen: ToolInput[] = [];
    const tools: ToolSet = {
      echo: {
        execute: (input) => {
          seen.push(input);
          return "ok";
        },
      },
    };
    const { everything } = await channels(
      "任务",
      [
        { action: call("echo", { text: `key ${AWS}`, nested: { [GITHUB]: [OPENAI] } }, OPENAI) },
        { action: finish("ok") },
      ],
      tools,
    );
    expectNoSecret(everything, [AWS, GITHUB, OPENAI]);
    expectNoSecret(JSON.stringify(seen), [AWS, GITHUB, OPENAI]);
    expect(seen).toHaveLength(1);
  });

  it("masks a secret used as a tool name, including the unknown-tool reason", async () => {
    const { everything } = await channels("任务", [{ action: call(OPENAI) }], {
      echo: { execute: () => "" },
    });
    expectNoSecret(everything, [OPENAI]);
    expect(everything).toContain("未知工具");
  });

  it("masks a secret in the task goal, workspace and constraints before the provider sees the task", async () => {
    const events: TraceEvent[] = [];
    const provider = createScriptedProvider([{ action: finish("ok") }]);
    await runAgent(
      { goal: `部署 ${OPENAI}`, workspace: `/srv/${GITHUB}`, constraints: [`不要打印 ${AWS}`] },
      provider,
      {},
      { maxSteps: 1 },
      undefined,
      { trace: (event) => void events.push(event) },
    );
    const seen = JSON.stringify({
      task: provider.requests[0]?.task,
      messages: [...(provider.requests[0]?.messages ?? [])],
      events,
    });
    expectNoSecret(seen, [OPENAI, GITHUB, AWS]);
  });

  it("masks secrets in tool error messages and provider error messages", async () => {
    const tools: ToolSet = {
      bad: {
        execute: () => {
          throw new Error(`401 with ${OPENAI}`);
        },
      },
    };
    const toolRun = await channels("任务", [{ action: call("bad") }], tools);
    expectNoSecret(toolRun.everything, [OPENAI]);
    const providerRun = await channels("任务", [{ error: new Error(`bad key ${GITHUB}`) }], {});
    expectNoSecret(providerRun.everything, [GITHUB]);
  });

  it("masks every corpus shape wherever the model puts it", async () => {
    const all = SECRET_CORPUS.join(" | ");
    const { everything } = await channels(
      all,
      [{ action: say(all) }, { action: call("echo", { text: all }) }, { action: finish(all) }],
      { echo: { execute: (input) => input.text } },
    );
    expectNoSecret(everything, SECRET_CORPUS);
  });
});

describe("the default redactor reads the environment once per run", () => {
  const NAME = "AGENT_CORE_TEST_ROTATING_TOKEN";
  afterEach(() => {
    delete process.env[NAME];
  });

  it("masks a secret env value set or rotated after an earlier run in the same process", async () => {
    const leak: ToolSet = { leak: { execute: () => `value=${process.env[NAME]}` } };
    const turns = () => [{ action: call("leak") }, { action: finish("ok") }];
    delete process.env[NAME];
    await channels("任务", turns(), leak);

    process.env[NAME] = "first-rotation-value-0001";
    const first = await channels("任务", turns(), leak);
    expect(first.everything).not.toContain("first-rotation-value-0001");

    process.env[NAME] = "second-rotation-value-0002";
    const second = await channels("任务", turns(), leak);
    expect(second.everything).not.toContain("second-rotation-value-0002");
    expect(second.everything).toContain("[REDACTED:env]");
  });
});
