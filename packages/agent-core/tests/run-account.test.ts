/**
 * A run account (`RunOptions.account`): spending made for a run outside its loop, charged to
 * the account, counts against the run's budgets with its own — its own checks first, with the
 * guard's reasons; then own plus charged, naming the charged part.
 */
import { describe, expect, it } from "vitest";
import {
  createRunAccount,
  InvalidToolRegistryError,
  type Limits,
  type RunAccount,
  RunAccountError,
  type RunOptions,
  type RunSpend,
  runAgent,
  type ToolSet,
} from "../src/index.ts";
import { createScriptedProvider, type ScriptedTurn } from "../src/testing/index.ts";
import { call } from "./fixtures/actions.ts";

const finish = { action: { type: "finish", summary: "好了" } };
const PRICE = { inputPerMTok: 1_000_000, outputPerMTok: 0 };

/** A tool that charges `spend` to the account when it runs (a child's run, say). */
function charging(account: RunAccount, spend: Partial<RunSpend>): ToolSet {
  return {
    spawn: {
      execute: () => {
        account.charge(spend);
        return "子任务好了";
      },
    },
    echo: { execute: (input) => input.text ?? "" },
  };
}

/** A run whose replies are `turns` (each one input token unless it says), with `account`. */
function runWith(
  account: RunAccount,
  tools: ToolSet,
  turns: readonly ScriptedTurn[],
  limits: Limits,
  options: RunOptions = {},
) {
  const script = turns.map(
    (turn): ScriptedTurn => ({ usage: { inputTokens: 1, outputTokens: 0 }, ...turn }),
  );
  const provider = createScriptedProvider(script);
  return {
    provider,
    result: runAgent("任务", provider, tools, limits, undefined, { account, ...options }),
  };
}

const spawnTurn = { action: call("spawn") };
const echoTurn = { action: call("echo", { text: "x" }) };

describe("charged spend stops the run before its next model call", () => {
  it("steps: own plus charged reach maxSteps, the reason naming the charged part", async () => {
    const account = createRunAccount({ chargedAs: "子 Agent" });
    const tools = charging(account, { steps: 3 });
    const { provider, result } = runWith(account, tools, [spawnTurn, echoTurn, finish], {
      maxSteps: 4,
    });
    expect(await result).toMatchObject({
      status: "budget_exceeded",
      code: "max_steps",
      reason: "已用 4 步（其中子 Agent 3 步），达到预算 4",
      steps: 1,
      toolCalls: 1,
    });
    expect(provider.remaining).toBe(2);
  });

  it("tokens: own plus charged reach maxTokens", async () => {
    const account = createRunAccount({ chargedAs: "子 Agent" });
    const tools = charging(account, { tokens: 9 });
    const { result } = runWith(account, tools, [spawnTurn, echoTurn, finish], {
      maxSteps: 9,
      maxTokens: 10,
    });
    expect(await result).toMatchObject({
      status: "budget_exceeded",
      code: "max_tokens",
      reason: "已用 10 个 token（其中子 Agent 9 个），达到预算 10",
      steps: 1,
    });
  });

  it("cost: own plus charged reach maxCostUsd, printed as the run's own cost stop prints it", async () => {
    const account = createRunAccount({ chargedAs: "子 Agent" });
    const tools = charging(account, { costUsd: 0.2 });
    // Each reply costs $1 (one input token at $1M per million); the budget is $1.2.
    const { result } = runWith(
      account,
      tools,
      [spawnTurn, echoTurn, finish],
      { maxSteps: 9 },
      {
        price: PRICE,
        maxCostUsd: 1.2,
      },
    );
    expect(await result).toMatchObject({
      status: "budget_exceeded",
      code: "max_cost",
      reason: "已花费 $1.2000（其中子 Agent $0.2000），达到成本预算 $1.2000",
      steps: 1,
      costUsd: 1,
    });
  });
});

describe("charged tool calls stop the run before its next tool call", () => {
  it("answers the call not run with max_tool_calls, naming the charged calls", async () => {
    const account = createRunAccount({ chargedAs: "子 Agent" });
    let echoed = 0;
    const tools: ToolSet = {
      ...charging(account, { toolCalls: 2 }),
      echo: {
        execute: () => {
          echoed += 1;
          return "x";
        },
      },
    };
    const reply = { actions: [call("spawn"), call("echo", { text: "x" })] };
    const { result } = runWith(account, tools, [reply, finish], { maxSteps: 9, maxToolCalls: 3 });
    const ended = await result;
    const reason = "已执行 3 次工具（其中子 Agent 2 次），达到预算 3";
    expect(ended).toMatchObject({ status: "budget_exceeded", code: "max_tool_calls", reason });
    expect(ended.toolCalls).toBe(1);
    expect(echoed).toBe(0);
    const answer = ended.messages.at(-1);
    expect(answer).toMatchObject({
      role: "tool",
      tool: "echo",
      ok: false,
      error: { code: "max_tool_calls", message: `未执行：${reason}` },
    });
  });
});

describe("the run's own budgets first, with the guard's reasons", () => {
  it("nothing charged: the guard's own messages", async () => {
    const steps = createRunAccount({ chargedAs: "子 Agent" });
    const ranOut = runWith(steps, { echo: { execute: () => "x" } }, [echoTurn, finish], {
      maxSteps: 1,
    });
    expect(await ranOut.result).toMatchObject({ code: "max_steps", reason: "已达到最大步数 1" });
    const calls = createRunAccount({ chargedAs: "子 Agent" });
    const reply = { actions: [call("echo", { text: "a" }), call("echo", { text: "b" })] };
    const over = runWith(calls, { echo: { execute: () => "x" } }, [reply, finish], {
      maxSteps: 9,
      maxToolCalls: 1,
    });
    expect(await over.result).toMatchObject({
      code: "max_tool_calls",
      reason: "已执行 1 次工具调用，达到上限 1",
    });
  });

  it("own spending over a budget stops with the own reason even with more charged", async () => {
    // Step 2's call charges 5 steps; before step 3 the own 2 steps reach maxSteps 2 first.
    const turns = [echoTurn, spawnTurn, echoTurn, finish];
    const account = createRunAccount({ chargedAs: "子 Agent" });
    const { result } = runWith(account, charging(account, { steps: 5 }), turns, { maxSteps: 2 });
    expect(await result).toMatchObject({ code: "max_steps", reason: "已达到最大步数 2" });
    // The own cost ($2) is checked before the charged steps (2 + 5 of 6), as ever.
    const second = createRunAccount({ chargedAs: "子 Agent" });
    const more = runWith(
      second,
      charging(second, { steps: 5 }),
      turns,
      { maxSteps: 6 },
      {
        price: PRICE,
        maxCostUsd: 2,
      },
    );
    expect(await more.result).toMatchObject({
      code: "max_cost",
      reason: "已花费 $2.0000，达到成本预算 $2.0000",
    });
  });

  it("runs as without an account while the charges stay under every budget", async () => {
    const account = createRunAccount({ chargedAs: "子 Agent" });
    const tools = charging(account, { steps: 1, toolCalls: 1, tokens: 1, costUsd: 0.5 });
    const { result } = runWith(
      account,
      tools,
      [spawnTurn, finish],
      { maxSteps: 3, maxToolCalls: 2, maxTokens: 4 },
      { price: PRICE, maxCostUsd: 2.6 },
    );
    expect(await result).toMatchObject({ status: "completed", steps: 2, toolCalls: 1, costUsd: 2 });
  });
});

describe("what an account reads", () => {
  it("the run's own spending: zeros before it starts, the guard's counts and cost as it goes", async () => {
    const account = createRunAccount({ chargedAs: "子 Agent" });
    const zero = { steps: 0, toolCalls: 0, tokens: 0, costUsd: 0 };
    expect(account.own()).toEqual(zero);
    expect(account.charged()).toEqual(zero);
    const seen: RunSpend[] = [];
    const tools: ToolSet = {
      look: {
        execute: () => {
          seen.push(account.own());
          account.charge({ steps: 2, tokens: 7 });
          return "看过了";
        },
      },
    };
    const turns = [{ action: call("look"), usage: { inputTokens: 3, outputTokens: 2 } }, finish];
    const { result } = runWith(account, tools, turns, { maxSteps: 9 }, { price: PRICE });
    const ended = await result;
    // During the call: one step, this call counted, its reply's 5 tokens at $3.
    expect(seen).toEqual([{ steps: 1, toolCalls: 1, tokens: 5, costUsd: 3 }]);
    expect(account.own()).toEqual({
      steps: ended.steps,
      toolCalls: ended.toolCalls,
      tokens: ended.usage.inputTokens + ended.usage.outputTokens,
      costUsd: ended.costUsd,
    });
    expect(account.charged()).toEqual({ steps: 2, toolCalls: 0, tokens: 7, costUsd: 0 });
    expect(account.chargedAs).toBe("子 Agent");
  });
});

describe("an account misused", () => {
  it("given to a second run: RunAccountError, and the first run's account is untouched", async () => {
    const account = createRunAccount({ chargedAs: "子 Agent" });
    const tools = { echo: { execute: () => "x" } };
    await runAgent("一", createScriptedProvider([finish]), tools, { maxSteps: 2 }, undefined, {
      account,
    });
    const again = runAgent(
      "二",
      createScriptedProvider([finish]),
      tools,
      { maxSteps: 2 },
      undefined,
      {
        account,
      },
    );
    await expect(again).rejects.toThrow(RunAccountError);
    await expect(again).rejects.toThrow(/belongs to another run already/);
    expect(account.own().steps).toBe(1);
  });

  it("a run that throws before it starts leaves the account free for the next one", async () => {
    const account = createRunAccount({ chargedAs: "子 Agent" });
    const badTools = { "not a name!": { execute: () => "x" } };
    const refused = runAgent(
      "一",
      createScriptedProvider([finish]),
      badTools,
      { maxSteps: 2 },
      undefined,
      {
        account,
      },
    );
    await expect(refused).rejects.toThrow(InvalidToolRegistryError);
    const ran = await runAgent(
      "二",
      createScriptedProvider([finish]),
      {},
      { maxSteps: 2 },
      undefined,
      {
        account,
      },
    );
    expect(ran.status).toBe("completed");
  });

  it("not made by createRunAccount: RunAccountError", async () => {
    const fake: RunAccount = {
      chargedAs: "子 Agent",
      charge() {},
      charged: () => ({ steps: 0, toolCalls: 0, tokens: 0, costUsd: 0 }),
      own: () => ({ steps: 0, toolCalls: 0, tokens: 0, costUsd: 0 }),
    };
    const run = runAgent("一", createScriptedProvider([finish]), {}, { maxSteps: 2 }, undefined, {
      account: fake,
    });
    await expect(run).rejects.toThrow(/createRunAccount/);
  });

  it("charged with a negative, NaN, infinite or fractional count: RunAccountError, nothing charged", () => {
    const account = createRunAccount({ chargedAs: "子 Agent" });
    const bad: Partial<RunSpend>[] = [
      { steps: -1 },
      { steps: 1, tokens: Number.NaN },
      { toolCalls: 1.5 },
      { costUsd: -0.01 },
      { costUsd: Number.POSITIVE_INFINITY },
      { steps: "2" as unknown as number },
    ];
    for (const spend of bad) {
      expect(() => account.charge(spend)).toThrow(RunAccountError);
    }
    expect(() => account.charge({ tokens: Number.NaN })).toThrow(
      "charge: tokens must be an integer ≥ 0, got NaN",
    );
    expect(() => account.charge(null as unknown as RunSpend)).toThrow(RunAccountError);
    expect(account.charged()).toEqual({ steps: 0, toolCalls: 0, tokens: 0, costUsd: 0 });
    account.charge({ costUsd: 0.25 });
    expect(account.charged().costUsd).toBe(0.25);
  });

  it("made without a word for the charged part: RunAccountError", () => {
    expect(() => createRunAccount({ chargedAs: "" })).toThrow(RunAccountError);
    expect(() => createRunAccount({} as { chargedAs: string })).toThrow(/chargedAs/);
  });
});
