import { type RunResult, runAgent, type ToolSet } from "@coding-agent/agent-core";
import { createOpenAICompatibleProvider, type ToolCallParts } from "@coding-agent/providers";
import { addToolCallDelta, parseRetryAfter, retryWait } from "@lab";
import { describe, expect, it } from "vitest";
import {
  type Answer,
  finished,
  startMisbehavingServer,
  text,
  toolDelta,
} from "./misbehaving-server.ts";

describe("parseRetryAfter", () => {
  it("reads a number of seconds as milliseconds", () => {
    expect(parseRetryAfter("2"), "Retry-After: 2 是两秒").toBe(2_000);
    expect(parseRetryAfter("0")).toBe(0);
    expect(parseRetryAfter(" 30 "), "前后的空白不算").toBe(30_000);
  });

  it("reads an HTTP date from the response's own Date header, not this machine's clock", () => {
    const sent = "Mon, 01 Jan 2001 00:00:00 GMT";
    const machine = () => Date.parse("Mon, 01 Jan 2001 00:00:05 GMT");
    expect(
      parseRetryAfter("Mon, 01 Jan 2001 00:00:03 GMT", sent, machine),
      "本机的钟快了 5 秒：仍然从响应的 Date 算起",
    ).toBe(3_000);
  });

  it("counts a date from now() when the response has no Date header, or one it cannot read", () => {
    const now = () => Date.parse("Tue, 01 Dec 2026 10:00:00 GMT");
    expect(parseRetryAfter("Tue, 01 Dec 2026 10:00:04 GMT", null, now)).toBe(4_000);
    expect(parseRetryAfter("Tue, 01 Dec 2026 10:00:04 GMT", "yesterday", now)).toBe(4_000);
  });

  it("a date already past is 0", () => {
    const sent = "Tue, 01 Dec 2026 10:00:00 GMT";
    expect(parseRetryAfter("Tue, 01 Dec 2026 09:59:00 GMT", sent)).toBe(0);
  });

  it("answers undefined for no header and for what it cannot read", () => {
    for (const value of [null, "1.5", "-1", "soon", "", "2s"]) {
      expect(parseRetryAfter(value), `Retry-After: ${JSON.stringify(value)}`).toBeUndefined();
    }
  });
});

describe("retryWait", () => {
  it("waits at least what the server asked", () => {
    expect(retryWait({ backoffMs: 5, retryAfterMs: 2_000, remainingMs: 10_000 })).toEqual({
      kind: "wait",
      ms: 2_000,
    });
  });

  it("never waits less than its own backoff: Retry-After: 0 does not make retries hammer the server", () => {
    expect(retryWait({ backoffMs: 500, retryAfterMs: 0, remainingMs: undefined })).toEqual({
      kind: "wait",
      ms: 500,
    });
  });

  it("does not wait what the time budget cannot hold, not even exactly the time left", () => {
    expect(
      retryWait({ backoffMs: 5, retryAfterMs: 10_000, remainingMs: 3_000 }),
      "超过预算",
    ).toEqual({
      kind: "past_budget",
      ms: 10_000,
    });
    expect(
      retryWait({ backoffMs: 5, retryAfterMs: 3_000, remainingMs: 3_000 }),
      "恰好用完预算",
    ).toEqual({
      kind: "past_budget",
      ms: 3_000,
    });
    expect(retryWait({ backoffMs: 5, retryAfterMs: 2_999, remainingMs: 3_000 }).kind).toBe("wait");
  });

  it("without a time budget, waits up to a minute and no longer", () => {
    expect(retryWait({ backoffMs: 5, retryAfterMs: 60_000, remainingMs: undefined })).toEqual({
      kind: "wait",
      ms: 60_000,
    });
    expect(
      retryWait({ backoffMs: 5, retryAfterMs: 3_600_000, remainingMs: undefined }),
      "Retry-After: 3600 不能让运行挂上一小时",
    ).toEqual({ kind: "too_long", ms: 3_600_000 });
  });
});

/** Adds the deltas in their order, and answers each call's name and its joined arguments, by index. */
function assemble(deltas: Parameters<typeof addToolCallDelta>[1][]) {
  const calls = new Map<number, ToolCallParts>();
  for (const delta of deltas) addToolCallDelta(calls, delta);
  return Object.fromEntries(
    [...calls.entries()].map(([index, call]) => [
      index,
      { id: call.id, name: call.name, arguments: call.whole ?? call.pieces.join("") },
    ]),
  );
}

describe("addToolCallDelta", () => {
  it("builds one call from its deltas: id and name from the first, the arguments joined in order", () => {
    expect(
      assemble([
        { index: 0, id: "call_a", function: { name: "read_file", arguments: "" } },
        { index: 0, function: { arguments: '{"pa' } },
        { index: 0, function: { arguments: 'th":"a.txt"}' } },
      ]),
    ).toEqual({ 0: { id: "call_a", name: "read_file", arguments: '{"path":"a.txt"}' } });
  });

  it("keeps the interleaved deltas of parallel calls apart, by index", () => {
    expect(
      assemble([
        { index: 0, id: "call_a", function: { name: "read_file", arguments: "" } },
        { index: 1, id: "call_b", function: { name: "list_files", arguments: "" } },
        { index: 0, function: { arguments: '{"path":' } },
        { index: 1, function: { arguments: '{"dir":' } },
        { index: 0, function: { arguments: '"a.txt"}' } },
        { index: 1, function: { arguments: '"src"}' } },
      ]),
      "每个片段拼回它自己的调用",
    ).toEqual({
      0: { id: "call_a", name: "read_file", arguments: '{"path":"a.txt"}' },
      1: { id: "call_b", name: "list_files", arguments: '{"dir":"src"}' },
    });
  });

  it("a server that repeats the call's id and name in every delta still makes one call", () => {
    expect(
      assemble([
        { index: 0, id: "call_a", function: { name: "read_file", arguments: '{"path":' } },
        { index: 0, id: "call_a", function: { name: "read_file", arguments: '"a.txt"}' } },
      ]),
      "重复的 id 不是新的调用",
    ).toEqual({ 0: { id: "call_a", name: "read_file", arguments: '{"path":"a.txt"}' } });
  });

  it("keeps arguments that come as a JSON object whole", () => {
    expect(
      assemble([{ index: 0, id: "c", function: { name: "read_file", arguments: { path: "a" } } }]),
    ).toEqual({ 0: { id: "c", name: "read_file", arguments: { path: "a" } } });
  });
});

/**
 * Runs an agent on the real OpenAI-compatible provider against the misbehaving server, with
 * your three functions plugged into the runtime. Sleep and clock are fakes: a wait is
 * recorded (and moves the clock) instead of taking time.
 */
async function runAgainst(answers: readonly Answer[], limits: { maxDurationMs?: number } = {}) {
  const server = await startMisbehavingServer(answers);
  let now = 0;
  const waits: number[] = [];
  const notes: unknown[] = [];
  const tools: ToolSet = {
    write_note: {
      execute: async (input) => {
        notes.push(input);
        return "ok";
      },
    },
  };
  const provider = createOpenAICompatibleProvider({
    model: "lab-model",
    baseUrl: server.url,
    apiKey: "sk-lab-38-not-a-real-key",
    parseRetryAfter,
    addToolCallDelta,
  });
  try {
    const result: RunResult = await runAgent(
      "写两条笔记",
      provider,
      tools,
      { maxSteps: 5, ...limits },
      undefined,
      {
        clock: () => now,
        retry: {
          policy: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 10 },
          // Equal jitter with random 0: every backoff is 5 ms.
          random: () => 0,
          sleep: async (ms) => {
            waits.push(ms);
            now += ms;
          },
          wait: retryWait,
        },
      },
    );
    return { result, waits, notes, requests: server.requests() };
  } finally {
    await server.close();
  }
}

const answer = (words: string): Answer => ({ events: [text(words), finished("stop")] });

describe("your pieces inside runAgent, against a loopback server that misbehaves", () => {
  it("a 429 with Retry-After: 2 waits 2000 ms, then the retried request completes", async () => {
    const { result, waits, requests } = await runAgainst(
      [{ status: 429, headers: { "retry-after": "2" } }, answer("好了")],
      { maxDurationMs: 60_000 },
    );
    expect(result.status).toBe("completed");
    expect(waits, "等了服务器要的两秒").toEqual([2_000]);
    expect(requests).toBe(2);
  });

  it("a 429 whose Retry-After is an HTTP date waits from the response's Date", async () => {
    const { result, waits } = await runAgainst([
      {
        status: 429,
        headers: {
          date: "Mon, 01 Jan 2001 00:00:00 GMT",
          "retry-after": "Mon, 01 Jan 2001 00:00:03 GMT",
        },
      },
      answer("好了"),
    ]);
    expect(result.status).toBe("completed");
    expect(waits, "响应的 Date 之后 3 秒").toEqual([3_000]);
  });

  it("a 503 with Retry-After: 0 still waits the backoff", async () => {
    const { result, waits } = await runAgainst([
      { status: 503, headers: { "retry-after": "0" } },
      answer("好了"),
    ]);
    expect(result.status).toBe("completed");
    expect(waits, "退避是 5 ms").toEqual([5]);
  });

  it("a Retry-After past the time budget is not waited: the run stops max_duration after one request", async () => {
    const { result, waits, requests } = await runAgainst(
      [{ status: 429, headers: { "retry-after": "30" } }, answer("好了")],
      { maxDurationMs: 5_000 },
    );
    expect(waits, "等不完的不等").toEqual([]);
    expect(requests).toBe(1);
    expect(result).toMatchObject({ status: "budget_exceeded", code: "max_duration" });
    expect(result.reason).toContain("Retry-After");
  });

  it("parallel tool calls whose deltas interleave reach their tools whole", async () => {
    const { result, notes } = await runAgainst([
      {
        events: [
          toolDelta(0, { id: "call_a", name: "write_note" }),
          toolDelta(1, { id: "call_b", name: "write_note" }),
          toolDelta(0, { arguments: '{"name":' }),
          toolDelta(1, { arguments: '{"name":' }),
          toolDelta(0, { arguments: '"a.txt"}' }),
          toolDelta(1, { arguments: '"b.txt"}' }),
          finished("tool_calls"),
        ],
      },
      answer("两条都写好了"),
    ]);
    expect(notes, "两个调用各自拿到自己的参数").toEqual([{ name: "a.txt" }, { name: "b.txt" }]);
    expect(result.status).toBe("completed");
  });

  it("a stream cut halfway is retried: its partial text is never the answer", async () => {
    const { result, waits, requests } = await runAgainst([
      { events: [text("半截的")], cut: "destroy" },
      { events: [text("也是半截")], cut: "end" },
      answer("完整的回答"),
    ]);
    expect(result.status).toBe("completed");
    expect(result.summary).toBe("完整的回答");
    expect(requests).toBe(3);
    expect(waits).toEqual([5, 5]);
  });

  it("garbage in a stream is a provider_error, not retried", async () => {
    const { result, requests } = await runAgainst([
      { events: [text("开头"), '{"choices": [ 这不是 JSON'] },
      answer("不该用到"),
    ]);
    expect(result).toMatchObject({ status: "failed", code: "provider_error" });
    expect(result.reason).toContain("无法解析");
    expect(requests).toBe(1);
  });
});
