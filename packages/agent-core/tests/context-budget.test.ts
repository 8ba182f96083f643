import { describe, expect, it } from "vitest";
import {
  artifactMainField,
  artifactText,
  type CompactionQuestion,
  type ContextBudgetOptions,
  chooseCompaction,
  createContextBudget,
  createRedactor,
  InvalidLimitsError,
  type Message,
  type ModelRequest,
  runAgent,
} from "../src/index.ts";
import { createScriptedProvider, type ScriptedTurn } from "../src/testing/index.ts";
import {
  estimateChars as estimate,
  finish,
  lastRequest,
  read,
  readCall,
  readFileTool,
  readResult,
  runUnderBudget,
} from "./support/budget-run.ts";
import { memoryStore } from "./support/memory-artifacts.ts";

const SECRET = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789";

async function run(
  turns: readonly ScriptedTurn[],
  options: Partial<ContextBudgetOptions> & { files?: Record<string, string> },
) {
  const { store, texts } = memoryStore();
  const { files = {}, ...budget } = options;
  const answer = (path: string) => ({ content: files[path] ?? "", path });
  const ran = await runUnderBudget(turns, answer, { artifacts: store, estimate, ...budget }, 20);
  return { ...ran, texts };
}

const toolContents = (request: ModelRequest) =>
  request.messages
    .filter((m): m is Extract<Message, { role: "tool" }> => m.role === "tool")
    .map((m) => m.content);

describe("createContextBudget", () => {
  const files = {
    a: "a1\na2\n".repeat(50),
    b: "b".repeat(300),
    c: "c".repeat(300),
    d: "d".repeat(300),
  };
  const turns = [read("a"), read("b"), read("c"), read("d")];

  it("sends the history unchanged while the request fits", async () => {
    const { result, requests, texts, events } = await run(turns, {
      files,
      maxContextTokens: 100_000,
    });
    expect(result.status).toBe("completed");
    expect(toolContents(lastRequest(requests))).toEqual(
      toolContents({ ...lastRequest(requests), messages: result.messages }),
    );
    expect(texts.size).toBe(0);
    expect(events.some((event) => event.type === "compacted")).toBe(false);
  });

  it("replaces the oldest results by stubs naming the call and an artifact holding the text", async () => {
    const { result, requests, texts, events } = await run(turns, {
      files,
      maxContextTokens: 2_000,
    });
    expect(result.status).toBe("completed");
    const last = lastRequest(requests);
    expect(estimate(last)).toBeLessThanOrEqual(2_000);
    const [first, ...others] = toolContents(last);
    expect(first).toMatch(/read_file 调用 call_1 的结果已存为 artifact call_1-1/);
    // The last two replies keep their results.
    expect(others.slice(-2).join("")).toContain("c".repeat(300));
    expect(others.slice(-2).join("")).toContain("d".repeat(300));
    // The artifact keeps the file's lines, not one line of JSON.
    expect(texts.get("call_1-1")?.startsWith(files.a)).toBe(true);
    const compacted = events.find((event) => event.type === "compacted");
    expect(compacted).toMatchObject({
      maxContextTokens: 2_000,
      results: [{ callId: "call_1", tool: "read_file", artifactId: "call_1-1" }],
    });
    // The history itself is never changed.
    const kept = result.messages.find((message) => message.role === "tool");
    expect(kept?.content).toContain("a1\\na2");
  });

  it("keeps a result compacted in later requests and stores its text once", async () => {
    const { requests, texts } = await run([...turns, read("b"), read("c")], {
      files,
      maxContextTokens: 2_000,
    });
    const stubbed = requests.map((request) => toolContents(request)[0] ?? "");
    const firstStub = stubbed.findIndex((text) => text.includes("artifact call_1"));
    expect(firstStub).toBeGreaterThan(0);
    expect(stubbed.slice(firstStub).every((text) => text.includes("artifact call_1"))).toBe(true);
    expect([...texts.keys()].filter((id) => id.startsWith("call_1-"))).toHaveLength(1);
  });

  it("redacts a compacted result's artifact", async () => {
    const secretFiles = { ...files, a: `${files.a}token=${SECRET}\n` };
    const { texts } = await run(turns, { files: secretFiles, maxContextTokens: 2_000 });
    expect(texts.size).toBeGreaterThan(0);
    for (const text of texts.values()) expect(text).not.toContain(SECRET);
  });

  it("never compacts the goal, the last two replies' results or finish_rejected reasons", async () => {
    const { store } = memoryStore();
    let rejected = false;
    const provider = createScriptedProvider([...turns, finish, read("b"), finish]);
    const redact = createRedactor({ env: {} });
    await runAgent(
      "读文件",
      provider,
      {
        read_file: readFileTool((path) => files[path as keyof typeof files] ?? ""),
      },
      { maxSteps: 20 },
      undefined,
      {
        redact,
        extensions: [
          createContextBudget({ artifacts: store, redact, estimate, maxContextTokens: 2_200 }),
          {
            name: "gate",
            onFinish: () => {
              if (rejected) return undefined;
              rejected = true;
              return { kind: "reject", reasons: ["no_test_evidence"], message: "需要测试证据" };
            },
          },
        ],
      },
    );
    const last = lastRequest(provider.requests);
    expect(last.messages[0]).toMatchObject({ role: "user" });
    expect(
      last.messages.some((m) => m.role === "user" && "type" in m && m.type === "finish_rejected"),
    ).toBe(true);
    expect(toolContents(last).slice(-1)[0]).toBe(files.b);
    expect(estimate(last)).toBeLessThanOrEqual(2_200);
  });

  it("stops context_exhausted when the parts never compacted exceed the budget", async () => {
    const { result, requests } = await run(turns, { files, maxContextTokens: 400 });
    expect(result).toMatchObject({ status: "budget_exceeded", code: "context_exhausted" });
    expect(result.reason).toContain("上下文预算 400 token");
    expect(requests.every((request) => estimate(request) <= 400)).toBe(true);
  });

  it("sends a request exactly at the budget as it is", async () => {
    const probe = await run(turns.slice(0, 3), { files, maxContextTokens: 100_000 });
    const size = estimate(lastRequest(probe.requests));
    const { requests, texts } = await run(turns.slice(0, 3), { files, maxContextTokens: size });
    expect(estimate(lastRequest(requests))).toBe(size);
    expect(texts.size).toBe(0);
    const over = await run(turns.slice(0, 3), { files, maxContextTokens: size - 1 });
    expect(over.texts.size).toBe(1);
  });

  it("stores an output over maxObservationChars whole, redacted, and shows head, tail and the id", async () => {
    const big = `${Array.from({ length: 3_000 }, (_, n) => `line ${n}`).join("\n")}\nkey=${SECRET}\nthe end`;
    const { result, texts } = await run([read("big")], {
      files: { big },
      maxObservationChars: 2_000,
    });
    const [id, text] = [...texts.entries()][0] ?? [];
    expect(text?.split("\n").slice(0, 2)).toEqual(["line 0", "line 1"]);
    expect(text).not.toContain(SECRET);
    expect(text).toContain("the end");
    const observation = result.messages.find((m) => m.role === "tool");
    expect(observation?.content.length).toBeLessThanOrEqual(2_000);
    expect(observation?.content).toContain(`"artifact":"${id}"`);
    expect(observation?.content).toContain("line 0\\nline 1");
    expect(observation?.content).toContain("the end");
    expect(observation?.content).not.toContain(SECRET);
  });

  it("compacts what options.choose chooses", async () => {
    // A choice that keeps the first result whole: the next oldest go instead.
    const choose = (question: CompactionQuestion) =>
      chooseCompaction({
        ...question,
        messages: question.messages.filter((m) => m.role !== "tool" || m.callId !== "call_1"),
      });
    const { result, requests, texts } = await run(turns, {
      files,
      maxContextTokens: 2_200,
      choose,
    });
    expect(result.status).toBe("completed");
    const [first, second] = toolContents(lastRequest(requests));
    expect(first).toContain("a1\\na2");
    expect(second).toMatch(/call_2 的结果已存为 artifact/);
    expect(estimate(lastRequest(requests))).toBeLessThanOrEqual(2_200);
    expect([...texts.keys()].some((id) => id.startsWith("call_1"))).toBe(false);
  });

  it("refuses a budget without an estimate, and a budget below 1", () => {
    const { store } = memoryStore();
    const redact = (text: string) => text;
    expect(() => createContextBudget({ artifacts: store, redact, maxContextTokens: 10 })).toThrow(
      InvalidLimitsError,
    );
    expect(() =>
      createContextBudget({ artifacts: store, redact, estimate, maxContextTokens: 0 }),
    ).toThrow(InvalidLimitsError);
  });
});

describe("chooseCompaction", () => {
  const messages: Message[] = [
    { role: "user", content: "目标" },
    ...["c1", "c2", "c3", "c4"].flatMap((id) => [readCall(id), readResult(id, 100)]),
  ];
  /** Each result 100 tokens, a stub 10. */
  const question = (maxContextTokens: number, compacted: string[] = []): CompactionQuestion => ({
    messages,
    compacted: new Set(compacted),
    tokensWith: (ids) => 400 - 90 * new Set([...compacted, ...ids]).size,
    maxContextTokens,
  });

  it("chooses the fewest oldest results, never those of the last two replies", () => {
    expect(chooseCompaction(question(400))).toEqual({ kind: "fits", callIds: [] });
    expect(chooseCompaction(question(310))).toEqual({ kind: "fits", callIds: ["c1"] });
    expect(chooseCompaction(question(220))).toEqual({ kind: "fits", callIds: ["c1", "c2"] });
    expect(chooseCompaction(question(219))).toEqual({ kind: "exhausted", tokens: 220 });
  });

  it("leaves compacted results compacted and does not choose them again", () => {
    expect(chooseCompaction(question(220, ["c1"]))).toEqual({ kind: "fits", callIds: ["c2"] });
  });
});

describe("artifactText", () => {
  it("keeps a file's content and a command's output with their line breaks", () => {
    expect(artifactText("a\nb")).toBe("a\nb");
    expect(artifactText({ content: "x\ny", hash: "h" })).toBe(
      'x\ny\n--- fields ---\n{\n  "hash": "h"\n}',
    );
    expect(artifactText({ exitCode: 1, stderr: "e\n", stdout: "o\n" })).toBe(
      'o\n\n--- stderr ---\ne\n\n--- fields ---\n{\n  "exitCode": 1\n}',
    );
    expect(artifactText([1, 2])).toBe("[\n  1,\n  2\n]");
  });

  it("shows a value without text fields as indented JSON", () => {
    expect(artifactText({ exitCode: 0 })).toBe('{\n  "exitCode": 0\n}');
    expect(artifactText(null)).toBe("null");
  });

  it("adds no fields section when every field is text", () => {
    expect(artifactText({ stderr: "e", stdout: "o" })).toBe("o\n--- stderr ---\ne");
  });
});

describe("artifactMainField", () => {
  it("names the text field an artifact starts with", () => {
    expect(artifactMainField({ content: "x", path: "a" })).toBe("content");
    expect(artifactMainField({ exitCode: 1, stderr: "e", stdout: "o" })).toBe("stdout");
  });

  it("names none for a value without text fields", () => {
    expect(artifactMainField({ content: 1, exitCode: 0 })).toBeUndefined();
    expect(artifactMainField("text")).toBeUndefined();
    expect(artifactMainField(null)).toBeUndefined();
  });
});
