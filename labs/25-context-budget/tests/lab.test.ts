import {
  type ArtifactStore,
  type CompactionQuestion,
  createContextBudget,
  type Message,
  type ModelRequest,
  type RunExtension,
  runAgent,
  type ToolSet,
} from "@coding-agent/agent-core";
import { createScriptedProvider, type ScriptedTurn } from "@coding-agent/agent-core/testing";
import { chooseCompaction } from "@lab";
import { describe, expect, it } from "vitest";

const goal: Message = { role: "user", content: "修复 add 并让测试通过" };
const call = (callId: string): Message => ({
  role: "assistant",
  type: "tool_call",
  callId,
  tool: "read_file",
  input: { path: `${callId}.js` },
});
const result = (callId: string): Message => ({
  role: "tool",
  callId,
  tool: "read_file",
  ok: true,
  content: "x".repeat(100),
  truncated: false,
  originalLength: 100,
});
const rejected: Message = {
  role: "user",
  type: "finish_rejected",
  reasons: ["no_test_evidence"],
  content: "还没有运行过测试：先调用 run_tests，测试通过后再提出完成。",
};
/** One reply per call id, each with its result: goal, c1, r1, c2, r2, … */
const history = (ids: readonly string[]): Message[] => [
  goal,
  ...ids.flatMap((id) => [call(id), result(id)]),
];

/** A question where the request takes 100 tokens and each result 100 more; a stub takes 10. */
function question(
  messages: readonly Message[],
  maxContextTokens: number,
  compacted: readonly string[] = [],
): CompactionQuestion {
  const results = messages.filter((m) => m.role === "tool").length;
  return {
    messages,
    compacted: new Set(compacted),
    tokensWith: (ids) => 100 + 100 * results - 90 * new Set([...compacted, ...ids]).size,
    maxContextTokens,
  };
}

const four = history(["c1", "c2", "c3", "c4"]);

describe("chooseCompaction", () => {
  it("leaves a request that fits as it is", () => {
    expect(chooseCompaction(question(four, 500)), "正好 500 token，预算 500").toEqual({
      kind: "fits",
      callIds: [],
    });
  });

  it("compacts the oldest results first, as few as make it fit", () => {
    expect(chooseCompaction(question(four, 410)), "超出 90 token：压缩一条就够").toEqual({
      kind: "fits",
      callIds: ["c1"],
    });
    expect(chooseCompaction(question(four, 320)), "超出 180 token：压缩两条").toEqual({
      kind: "fits",
      callIds: ["c1", "c2"],
    });
  });

  it("never compacts the results of the last two model replies, a reply of two calls included", () => {
    const twoCalls = [
      ...history(["c1", "c2"]),
      call("c3a"),
      call("c3b"),
      result("c3a"),
      result("c3b"),
    ];
    expect(
      chooseCompaction(question(twoCalls, 410)),
      "最后一轮有两个调用：c2 和 c3a、c3b 都不能压缩",
    ).toEqual({ kind: "fits", callIds: ["c1"] });
    expect(
      chooseCompaction(question(twoCalls, 409)).kind,
      "只压缩 c1 放不下时，不能去动最后两轮",
    ).toBe("exhausted");
  });

  it("stops context_exhausted when the pinned parts alone exceed the budget", () => {
    expect(chooseCompaction(question(four, 319)), "c1、c2 都压缩后仍有 320 token").toEqual({
      kind: "exhausted",
      tokens: 320,
    });
    expect(chooseCompaction(question(history(["c1"]), 150)), "只有一轮回复：没有能压缩的").toEqual({
      kind: "exhausted",
      tokens: 200,
    });
  });

  it("keeps compacted results compacted and never chooses them again", () => {
    expect(
      chooseCompaction(question(four, 320, ["c1"])),
      "c1 之前已经压缩：这次只需要再压缩 c2",
    ).toEqual({ kind: "fits", callIds: ["c2"] });
  });

  it("chooses only tool results: the goal and a finish_rejected reason are never candidates", () => {
    const withRejection = [...history(["c1", "c2"]), rejected, ...history(["c3", "c4"]).slice(1)];
    const choice = chooseCompaction(question(withRejection, 320));
    expect(choice, "目标和 finish_rejected 都不是工具结果").toEqual({
      kind: "fits",
      callIds: ["c1", "c2"],
    });
  });
});

/** Artifacts kept in memory. */
function memoryStore() {
  const texts = new Map<string, string>();
  const store: ArtifactStore = {
    put: async (text, meta) => {
      const id = `art-${meta.callId}`;
      texts.set(id, text);
      return id;
    },
    read: async (id) => texts.get(id),
  };
  return { store, texts };
}

/** Characters of the messages' JSON: a stand-in tokenizer, exact and easy to reason about. */
const estimate = (request: ModelRequest) => JSON.stringify(request.messages).length;
const read = (path: string): ScriptedTurn => ({
  action: { type: "tool_call", tool: "read_file", input: { path } },
});
const finish: ScriptedTurn = { action: { type: "finish", summary: "完成" } };
const files: Record<string, string> = {
  a: "a".repeat(400),
  b: "b".repeat(400),
  c: "c".repeat(400),
  d: "d".repeat(400),
};
const tools: ToolSet = { read_file: { execute: ({ path }) => files[String(path)] ?? "" } };

async function run(
  turns: readonly ScriptedTurn[],
  maxContextTokens: number,
  more: readonly RunExtension[] = [],
) {
  const { store, texts } = memoryStore();
  const provider = createScriptedProvider(turns);
  const budget = createContextBudget({
    artifacts: store,
    redact: (text) => text,
    estimate,
    maxContextTokens,
    choose: chooseCompaction,
  });
  const result = await runAgent("读四个文件", provider, tools, { maxSteps: 20 }, undefined, {
    extensions: [budget, ...more],
  });
  return { result, requests: provider.requests, texts };
}

const toolContents = (request: ModelRequest | undefined) =>
  (request?.messages ?? []).flatMap((m) => (m.role === "tool" ? [m.content] : []));

describe("chooseCompaction inside runAgent", () => {
  it("keeps every request under the budget, the oldest results stubbed with an artifact holding their text", async () => {
    const { result, requests, texts } = await run(
      [read("a"), read("b"), read("c"), read("d"), finish],
      2_000,
    );
    expect(result.status, "四次读取之后完成").toBe("completed");
    for (const [index, request] of requests.entries()) {
      expect(estimate(request), `第 ${index + 1} 次请求的大小`).toBeLessThanOrEqual(2_000);
    }
    const last = toolContents(requests.at(-1));
    expect(last[0], "最早的结果换成了存根").toContain("art-call_1");
    expect(texts.get("art-call_1"), "artifact 里是完整的文本").toBe(files.a);
    expect(last.slice(-2), "最后两轮的结果原样保留").toEqual([files.c, files.d]);
  });

  it("never stubs the goal, the last two replies' results or a finish_rejected reason", async () => {
    let rejections = 0;
    const gate = {
      name: "gate",
      onFinish: () =>
        rejections++ > 0
          ? undefined
          : { kind: "reject" as const, reasons: ["no_test_evidence"], message: "先运行测试" },
    };
    const turns = [read("a"), read("b"), finish, read("c"), read("d"), finish];
    const { result, requests } = await run(turns, 2_100, [gate]);
    expect(result.status, "被拒绝一次之后完成").toBe("completed");
    const last = requests.at(-1);
    expect(estimate(last as ModelRequest), "最后一次请求的大小").toBeLessThanOrEqual(2_100);
    expect(last?.messages[0], "目标原样保留").toEqual({ role: "user", content: "读四个文件" });
    expect(
      last?.messages.some((m) => m.role === "user" && "type" in m && m.content === "先运行测试"),
      "finish_rejected 的理由还在",
    ).toBe(true);
    expect(toolContents(last).slice(-2), "最后两轮的结果原样保留").toEqual([files.c, files.d]);
    expect(toolContents(last)[0], "最早的结果换成了存根").toContain("art-call_1");
  });

  it("ends budget_exceeded / context_exhausted when the pinned parts alone do not fit", async () => {
    const { result, requests } = await run([read("a"), read("b"), read("c"), finish], 700);
    expect({ status: result.status, code: result.code }, "预算 700，最近两轮就有 800 多").toEqual({
      status: "budget_exceeded",
      code: "context_exhausted",
    });
    for (const [index, request] of requests.entries()) {
      expect(estimate(request), `第 ${index + 1} 次请求的大小`).toBeLessThanOrEqual(700);
    }
  });
});
