import { describe, expect, it } from "vitest";
import {
  type CompactionQuestion,
  type ContextBudgetOptions,
  chooseCompaction,
  createContextBudget,
  InvalidLimitsError,
  type Message,
  type ModelRequest,
} from "../src/index.ts";
import type { ScriptedTurn } from "../src/testing/index.ts";
import {
  estimateChars,
  lastRequest,
  read,
  readCall,
  readResult,
  runUnderBudget,
} from "./support/budget-run.ts";
import { memoryStore } from "./support/memory-artifacts.ts";

/** Edges of the context budget the main test file leaves out: each names what it guards. */

/** A run whose read_file returns `files[path]` (a string, an object, or an expected error). */
async function run(
  turns: readonly ScriptedTurn[],
  files: Record<string, unknown>,
  options: Partial<ContextBudgetOptions> & { store?: ReturnType<typeof memoryStore> } = {},
) {
  const { store, ...budget } = options;
  const memory = store ?? memoryStore();
  let estimates = 0;
  const estimate = (request: ModelRequest) => {
    estimates += 1;
    return (options.estimate ?? estimateChars)(request);
  };
  const { result, requests, events } = await runUnderBudget(
    turns,
    (path) => files[path] ?? "",
    { artifacts: memory.store, ...budget, estimate },
    30,
  );
  const compactions = events.flatMap((event) =>
    event.type === "compacted" ? [event.results.map((r) => r.callId)] : [],
  );
  return {
    result,
    requests,
    ...memory,
    compactions,
    estimates: () => estimates,
  };
}

const toolMessages = (request: ModelRequest) =>
  request.messages.filter((m): m is Extract<Message, { role: "tool" }> => m.role === "tool");

describe("createContextBudget, options", () => {
  const { store } = memoryStore();
  const redact = (text: string) => text;

  it("takes a budget of 1 token and refuses 0 and fractions, naming the option", () => {
    expect(() =>
      createContextBudget({ artifacts: store, redact, estimate: () => 1, maxContextTokens: 1 }),
    ).not.toThrow();
    for (const bad of [0, 1.5, -3]) {
      expect(() =>
        createContextBudget({
          artifacts: store,
          redact,
          estimate: () => 1,
          maxContextTokens: bad,
        }),
      ).toThrow(new InvalidLimitsError(`invalid maxContextTokens: an integer ≥ 1, got ${bad}`));
    }
  });

  it("needs an estimate only with a budget", () => {
    expect(() => createContextBudget({ artifacts: store, redact })).not.toThrow();
    expect(() => createContextBudget({ artifacts: store, redact, maxContextTokens: 5 })).toThrow(
      /maxContextTokens needs an estimate function/,
    );
  });

  it("names itself, so an extension failure names the budget", () => {
    expect(createContextBudget({ artifacts: store, redact }).name).toBe("context-budget");
  });
});

describe("createContextBudget, cost of a run under budget", () => {
  it("without a budget never estimates and sends the history as it is", async () => {
    const files = { a: "a".repeat(5_000) };
    const { requests, estimates, texts } = await run([read("a"), read("a")], files, {});
    expect(estimates()).toBe(0);
    expect(texts.size).toBe(0);
    expect(toolMessages(lastRequest(requests)).map((m) => m.content)).toEqual([
      "a".repeat(5_000),
      "a".repeat(5_000),
    ]);
  });

  it("under budget pays one estimate a step", async () => {
    const { requests, estimates } = await run(
      [read("a"), read("b")],
      { a: "x", b: "y" },
      {
        maxContextTokens: 100_000,
      },
    );
    expect(estimates()).toBe(requests.length);
  });
});

describe("createContextBudget, outputs over maxObservationChars", () => {
  const lines = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, n) => `${prefix}${n}`).join("\n");

  it("stores a string exactly at the bound as it is, one char more whole", async () => {
    const atBound = await run([read("a")], { a: "q".repeat(500) }, { maxObservationChars: 500 });
    expect(atBound.texts.size).toBe(0);
    const over = await run([read("a")], { a: "q".repeat(501) }, { maxObservationChars: 500 });
    expect([...over.texts.values()]).toEqual(["q".repeat(501)]);
  });

  it("stores under the call's id and tool, and the observation fills the bound exactly", async () => {
    const { result, texts, metas } = await run(
      [read("a")],
      { a: "z".repeat(9_000) },
      {
        maxObservationChars: 2_000,
      },
    );
    expect(metas).toEqual([{ callId: "call_1", tool: "read_file" }]);
    const observation = result.messages.find((m) => m.role === "tool");
    expect(observation?.content.length).toBe(2_000);
    const shown = JSON.parse(observation?.content ?? "{}") as Record<string, unknown>;
    expect(shown).toMatchObject({
      artifact: "call_1-1",
      totalChars: 9_000,
      totalLines: 1,
      truncated: true,
    });
    // Head and tail share what fits: at most one character apart.
    const head = shown.head as string;
    const tail = shown.tail as string;
    expect(Math.abs(head.length - tail.length)).toBeLessThanOrEqual(1);
    expect(head.length).toBeGreaterThan(500);
    expect(shown.note).toBe(
      `完整输出（9000 字符，1 行）已存为 artifact call_1-1：用 read_artifact {"id":"call_1-1","startLine":1,"endLine":100} 分页读取`,
    );
    expect(texts.get("call_1-1")).toBe("z".repeat(9_000));
  });

  it("takes head and tail from the main text field and says which field it is", async () => {
    const content = lines("row ", 2_000);
    const { result, texts } = await run(
      [read("a")],
      { a: { content, path: "a" } },
      {
        maxObservationChars: 2_000,
      },
    );
    const shown = JSON.parse(
      result.messages.find((m) => m.role === "tool")?.content ?? "{}",
    ) as Record<string, string | number>;
    expect(String(shown.head).startsWith("row 0\nrow 1\n")).toBe(true);
    expect(String(shown.tail).endsWith("row 1999")).toBe(true);
    expect(shown.note).toContain("开头是 content，head/tail 取自它");
    const stored = texts.get("call_1-1") ?? "";
    expect(shown.totalLines).toBe(stored.split("\n").length);
    expect(shown.totalChars).toBe(stored.length);
  });

  it("never cuts a surrogate pair in half at the edges of head or tail", async () => {
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u;
    for (let bound = 1_200; bound < 1_216; bound += 1) {
      for (const prefix of ["", "a"]) {
        const text = `${prefix}${"😀".repeat(3_000)}`;
        const { result } = await run([read("a")], { a: text }, { maxObservationChars: bound });
        const shown = JSON.parse(
          result.messages.find((m) => m.role === "tool")?.content ?? "{}",
        ) as { head: string; tail: string };
        expect(lone.test(shown.head), `head at ${bound}/${prefix}`).toBe(false);
        expect(lone.test(shown.tail), `tail at ${bound}/${prefix}`).toBe(false);
        expect(shown.tail.endsWith("😀")).toBe(true);
      }
    }
  });

  it("compacts a result stored whole later under the same artifact, stored once", async () => {
    const files = { big: "b".repeat(3_000), c: "c".repeat(300), d: "d".repeat(300) };
    const { requests, texts } = await run([read("big"), read("c"), read("d")], files, {
      maxObservationChars: 1_000,
      maxContextTokens: 2_000,
    });
    expect([...texts.keys()]).toEqual(["call_1-1"]);
    expect(toolMessages(lastRequest(requests))[0]?.content).toMatch(
      /^\[为节省上下文已压缩\] read_file 调用 call_1 的结果已存为 artifact call_1-1；/,
    );
    expect(requests.every((request) => estimateChars(request) <= 2_000)).toBe(true);
  });
});

describe("createContextBudget, compacting", () => {
  it("compacts an expected error with its text, keeping it an error with its code", async () => {
    const failure = { ok: false, error: { code: "not_found", message: `没有 ${"x".repeat(600)}` } };
    const files = { gone: failure, c: "c".repeat(300), d: "d".repeat(300) };
    const { requests, texts } = await run([read("gone"), read("c"), read("d")], files, {
      maxContextTokens: 2_100,
    });
    const [stub] = toolMessages(lastRequest(requests));
    expect(stub).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(stub?.content).toMatch(/read_file 调用 call_1 的结果已存为 artifact call_1-1/);
    expect(stub?.ok === false && stub.error.message).toBe(stub?.content);
    expect(texts.get("call_1-1")).toContain(`没有 ${"x".repeat(600)}`);
  });

  it("shows a successful result's stub as a whole, untruncated observation", async () => {
    const files = { a: "a".repeat(900), c: "c".repeat(300), d: "d".repeat(300) };
    const { requests } = await run([read("a"), read("c"), read("d")], files, {
      maxContextTokens: 1_700,
    });
    const [stub] = toolMessages(lastRequest(requests));
    expect(stub?.content).toMatch(/^\[为节省上下文已压缩\] read_file 调用 call_1 /);
    expect(stub).toMatchObject({ ok: true, truncated: false });
    expect(stub?.ok && stub.originalLength).toBe(stub?.content.length);
  });

  it("keeps old stubs in a later request that fits with them alone", async () => {
    const files = { a: "a".repeat(1_500), t: "t" };
    const { requests, texts, compactions } = await run(
      [read("a"), read("t"), read("t"), read("t")],
      files,
      {
        maxContextTokens: 2_000,
      },
    );
    expect(texts.size).toBe(1);
    // The last request is sent with the old stub and compacts nothing new.
    expect(compactions).toEqual([["call_1"], []]);
    const stubbed = requests.slice(-2).map((request) => toolMessages(request)[0]?.content);
    for (const content of stubbed) expect(content).toContain("artifact call_1-1");
    expect(requests.every((request) => estimateChars(request) <= 2_000)).toBe(true);
  });

  it("compacts newer results in a later request, never choosing the compacted ones again", async () => {
    const files = Object.fromEntries(["a", "b", "c", "d", "e"].map((p) => [p, p.repeat(800)]));
    const { result, compactions, requests } = await run(
      ["a", "b", "c", "d", "e"].map(read),
      files,
      { maxContextTokens: 3_900 },
    );
    expect(result.status).toBe("completed");
    expect(compactions).toEqual([["call_1"], ["call_2"]]);
    expect(requests.every((request) => estimateChars(request) <= 3_900)).toBe(true);
  });

  it("asks again when the real artifact ids are longer than the placeholders", async () => {
    const files = {
      a: "a".repeat(400),
      b: "b".repeat(400),
      c: "c".repeat(300),
      d: "d".repeat(300),
    };
    const turns = [read("a"), read("b"), read("c"), read("d")];
    const short = await run(turns, files, { maxContextTokens: 2_050 });
    expect(short.compactions).toEqual([["call_1"]]);
    // Stubs naming 70-character ids no longer fit with one result compacted: two are.
    const longIds = memoryStore((callId, n) => `${callId}-${n}-${"L".repeat(60)}`);
    const long = await run(turns, files, { maxContextTokens: 2_050, store: longIds });
    expect(long.result.status).toBe("completed");
    expect(long.compactions).toEqual([["call_1", "call_2"]]);
    expect(long.requests.every((request) => estimateChars(request) <= 2_050)).toBe(true);
  });

  it("stops context_exhausted, with the request's size, when the choice brings nothing new", async () => {
    const files = { a: "a".repeat(900), c: "c".repeat(300), d: "d".repeat(300) };
    const choose = (): ReturnType<typeof chooseCompaction> => ({
      kind: "fits",
      callIds: ["call_99"],
    });
    const { result, requests } = await run([read("a"), read("c"), read("d")], files, {
      maxContextTokens: 1_300,
      choose,
    });
    expect(result).toMatchObject({ status: "budget_exceeded", code: "context_exhausted" });
    const size = estimateChars({ ...lastRequest(requests), messages: result.messages });
    expect(result.reason).toContain(`估计仍有 ${size} token`);
  });
});

describe("chooseCompaction, replies of several calls", () => {
  const call = readCall;
  const result = (callId: string) => readResult(callId, 100);
  // Reply 1: c1. Reply 2: c2 and c3 at once. Reply 3: c4 and c5. The last two replies are protected.
  const messages: Message[] = [
    { role: "user", content: "目标" },
    call("c1"),
    result("c1"),
    call("c2"),
    call("c3"),
    result("c2"),
    result("c3"),
    call("c4"),
    call("c5"),
    result("c4"),
    result("c5"),
  ];
  const question = (maxContextTokens: number): CompactionQuestion => ({
    messages,
    compacted: new Set(),
    tokensWith: (ids) => 500 - 90 * new Set(ids).size,
    maxContextTokens,
  });

  it("counts calls made in one reply as one reply", () => {
    expect(chooseCompaction(question(410))).toEqual({ kind: "fits", callIds: ["c1"] });
    expect(chooseCompaction(question(400))).toEqual({ kind: "exhausted", tokens: 410 });
  });
});
