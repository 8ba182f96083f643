import {
  type RunExtension,
  runAgent,
  type TraceEvent,
  type TraceEventBody,
  toolError,
} from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { buildTraceReport, parseTraceLines } from "@coding-agent/cli";
import { escapeHtml, type ReportEvent, renderStep, type StepRow, summarizeSteps } from "@lab";
import { describe, expect, it } from "vitest";
import { decodeText, preText, tagsOf } from "./html-text.ts";

/** What a tool might print: each line ends a tag, an attribute or a page if shown unescaped. */
const HOSTILE = [
  "<script>window.__pwned=1</script>",
  '</textarea><img src=x onerror="window.__pwned=2">',
  "</pre></details><h1>注入</h1>",
  "a && b 之后的 &lt;b&gt; 是文字，不是标签",
].join("\n");

let seq = 0;
/** One trace event as the tracer numbers it. */
const event = (atMs: number, body: TraceEventBody | Record<string, unknown>): ReportEvent => {
  seq += 1;
  return { ...body, seq, atMs } as ReportEvent;
};
const completed = (step: number, usage: [number, number], costUsd?: number | null) =>
  event(step * 10, {
    type: "model_completed",
    step,
    ok: true,
    actionType: "tool_call",
    detail: "{}",
    usage: { inputTokens: usage[0], outputTokens: usage[1] },
    ...(costUsd === undefined ? {} : { costUsd }),
  });
const started = (atMs: number, step: number, callId: string, tool = "read_file") =>
  event(atMs, { type: "tool_started", step, callId, tool, input: `{"path":"${callId}.js"}` });
const finished = (atMs: number, step: number, callId: string, detail: string, tool = "read_file") =>
  event(atMs, { type: "tool_completed", step, callId, tool, ok: true, detail });

/** The tags renderStep writes; any other tag in its output came from a value. */
const ALLOWED_TAGS = new Set(["li", "h3", "p", "details", "summary", "pre"]);
const strayTags = (html: string) =>
  tagsOf(html)
    .map((tag) => tag.name)
    .filter((name) => !ALLOWED_TAGS.has(name));
const strayAttributes = (html: string) =>
  tagsOf(html)
    .flatMap((tag) => tag.attributes)
    .filter((name) => name !== "class" && !name.startsWith("data-"));

const row = (overrides: Partial<StepRow> = {}): StepRow => ({
  step: 1,
  inputTokens: 100,
  outputTokens: 20,
  costUsd: undefined,
  calls: [],
  rejections: [],
  ...overrides,
});
const call = (output: string, tool = "run_command") => ({
  callId: "call_1",
  tool,
  input: '{"argv":["cat","x"]}',
  ok: true,
  output,
  durationMs: 12,
});

describe("escapeHtml", () => {
  it.each([
    ["< (a tag begins)", "<", "&lt;"],
    ["> (a tag ends)", ">", "&gt;"],
    ['" (a double-quoted attribute ends)', '"', "&quot;"],
    ["' (a single-quoted attribute ends)", "'", "&#39;"],
    ["& (an entity begins)", "&", "&amp;"],
  ])("escapes %s", (_name, text, escaped) => {
    expect(escapeHtml(`x${text}y`), `${text} 应当写成 ${escaped}`).toBe(`x${escaped}y`);
  });

  it("escapes & first, so text that looks like an entity shows as it is", () => {
    expect(escapeHtml("&lt;"), "文字 &lt; 在页面上应当还是 &lt;").toBe("&amp;lt;");
    expect(escapeHtml("<b>"), "< 只换一次，不能变成 &amp;lt;").toBe("&lt;b&gt;");
  });

  it("leaves other text as it is: Chinese, line breaks, tabs", () => {
    expect(escapeHtml("修复\tsum\n第 2 行")).toBe("修复\tsum\n第 2 行");
  });
});

describe("summarizeSteps", () => {
  it("returns no steps for a run that made no model call", () => {
    expect(
      summarizeSteps([event(0, { type: "run_started", goal: "g", limits: { maxSteps: 1 } })]),
    ).toEqual([]);
  });

  it("adds up each step's own tokens, not the run's", () => {
    // A resumed run may ask the model again for the step it was in: both calls cost tokens.
    const rows = summarizeSteps([
      completed(1, [1200, 40]),
      completed(2, [1500, 30]),
      completed(2, [300, 5]),
    ]);
    expect(
      rows.map((r) => [r.step, r.inputTokens, r.outputTokens]),
      "第 2 步只算它自己的两次调用：1500 + 300 / 30 + 5",
    ).toEqual([
      [1, 1200, 40],
      [2, 1800, 35],
    ]);
  });

  it("pairs each result with its call by callId, two calls of one tool in one step included", () => {
    const rows = summarizeSteps([
      completed(1, [10, 1]),
      started(11, 1, "call_1_1"),
      finished(12, 1, "call_1_1", "a.js 的内容"),
      started(13, 1, "call_1_2"),
      finished(15, 1, "call_1_2", "b.js 的内容"),
    ]);
    expect(
      rows[0]?.calls.map((c) => [c.callId, c.output]),
      "同一步里两次 read_file：各自的结果配各自的调用",
    ).toEqual([
      ["call_1_1", "a.js 的内容"],
      ["call_1_2", "b.js 的内容"],
    ]);
  });

  it("measures a call from its start to its result", () => {
    const rows = summarizeSteps([
      completed(1, [10, 1]),
      started(100, 1, "c"),
      finished(142, 1, "c", "ok"),
    ]);
    expect(rows[0]?.calls[0], "tool_started 在 100 ms，tool_completed 在 142 ms").toMatchObject({
      ok: true,
      input: '{"path":"c.js"}',
      durationMs: 42,
    });
  });

  it("keeps a call without a result as unfinished", () => {
    const rows = summarizeSteps([completed(1, [10, 1]), started(11, 1, "c")]);
    const unfinished = rows[0]?.calls[0];
    expect(unfinished, "trace 在调用中途中断").toMatchObject({ callId: "c", durationMs: null });
    expect(unfinished?.ok, "没有结束的调用既不算成功也不算出错").toBeUndefined();
  });

  it("records a call refused before it ran, with its result and no input", () => {
    const refused = event(12, {
      type: "tool_completed",
      step: 1,
      callId: "call_1",
      tool: "edit_file",
      ok: false,
      detail: '{"ok":false,"error":{"code":"invalid_input"}}',
    });
    const rows = summarizeSteps([completed(1, [10, 1]), refused]);
    expect(rows[0]?.calls, "输入无效的调用没有 tool_started，只有 tool_completed").toEqual([
      {
        callId: "call_1",
        tool: "edit_file",
        input: "",
        ok: false,
        output: '{"ok":false,"error":{"code":"invalid_input"}}',
        durationMs: null,
      },
    ]);
  });

  it("adds up a step's costs; an unknown price makes its cost unknown, no cost leaves it absent", () => {
    const rows = summarizeSteps([
      completed(1, [10, 1], 0.25),
      completed(1, [10, 1], 0.5),
      completed(2, [10, 1], 0.25),
      completed(2, [10, 1], null),
      completed(2, [10, 1], 0.5),
      completed(3, [10, 1]),
    ]);
    expect(
      rows.map((r) => r.costUsd),
      "第 1 步 0.25 + 0.5；第 2 步有一次价格未知；第 3 步没有费用",
    ).toEqual([0.75, null, undefined]);
  });

  it("records each rejected finish in its step", () => {
    const rows = summarizeSteps([
      completed(3, [10, 1]),
      event(31, {
        type: "finish_rejected",
        step: 3,
        reasons: ["no_test_evidence"],
        detail: "先跑测试",
      }),
    ]);
    expect(rows[0]?.rejections, "第 3 步的完成被拒绝了一次").toEqual([["no_test_evidence"]]);
  });

  it("skips events it does not know, as a newer runtime writes them", () => {
    const rows = summarizeSteps([
      event(0, { type: "resumed", fromSeq: 4 }),
      completed(1, [10, 1]),
      event(12, { type: "future_metric", step: 1, gpuMs: 3 }),
    ]);
    expect(rows, "不认识的事件不影响这一步").toEqual([
      { step: 1, inputTokens: 10, outputTokens: 1, costUsd: undefined, calls: [], rejections: [] },
    ]);
  });
});

describe("renderStep", () => {
  it("shows a tool output holding <script> as text", () => {
    const html = renderStep(row({ calls: [call(HOSTILE)] }));
    expect(strayTags(html), "工具输出里的标签成了页面的标签").toEqual([]);
    expect(html).toContain("&lt;script&gt;window.__pwned=1&lt;/script&gt;");
  });

  it("keeps a quote in a tool name from ending its attribute", () => {
    const tool = 'read_file" onmouseover="window.__pwned=3';
    const html = renderStep(row({ calls: [call("ok", tool)] }));
    expect(strayAttributes(html), "引号结束了 data-tool，后面的文字成了新的属性").toEqual([]);
    const details = tagsOf(html).find((tag) => tag.name === "details");
    expect(decodeText(details?.values["data-tool"] ?? ""), "data-tool 的值应当是完整的工具名").toBe(
      tool,
    );
  });

  it("gives back every text exactly: decoding the page's text yields what the tool printed", () => {
    const html = renderStep(row({ calls: [call(HOSTILE)] }));
    expect(preText(html, "output"), "浏览器显示的输出应当和工具打印的一字不差").toBe(HOSTILE);
    expect(preText(html, "input")).toBe('{"argv":["cat","x"]}');
  });

  it("shows — for a cost that is absent or unknown, never $0", () => {
    expect(renderStep(row({ costUsd: undefined }))).toContain("费用 —");
    expect(renderStep(row({ costUsd: null }))).toContain("费用 —");
    expect(renderStep(row({ costUsd: 0.00272 }))).toContain("费用 $0.00272");
  });
});

describe("the report of a real run", () => {
  /** USD of one call at $2 / M input and $8 / M output; the finish that is rejected has no price. */
  const price = (usage: { inputTokens: number; outputTokens: number }) =>
    usage.outputTokens === 20 ? null : (usage.inputTokens * 2 + usage.outputTokens * 8) / 1_000_000;

  /** Runs the real loop: two reads in one reply, a failing test run, a rejected finish, a finish. */
  async function traceOfRun() {
    const events: ReportEvent[] = [];
    let clock = 0;
    let rejected = false;
    const gate: RunExtension = {
      name: "gate",
      onFinish: () => {
        if (rejected) return undefined;
        rejected = true;
        return { kind: "reject", reasons: ["no_test_evidence"], message: "还没有通过的测试" };
      },
    };
    const read = (path: string) => ({ type: "tool_call", tool: "read_file", input: { path } });
    const result = await runAgent(
      "修复 sum",
      createScriptedProvider([
        { actions: [read("a.js"), read("b.js")], usage: { inputTokens: 1200, outputTokens: 40 } },
        {
          action: { type: "tool_call", tool: "run_tests", input: {} },
          usage: { inputTokens: 1500, outputTokens: 30 },
        },
        {
          action: { type: "finish", summary: "改好了" },
          usage: { inputTokens: 1600, outputTokens: 20 },
        },
        {
          action: { type: "finish", summary: "测试过了" },
          usage: { inputTokens: 1700, outputTokens: 25 },
        },
      ]),
      {
        read_file: {
          execute: (input) => (input.path === "a.js" ? HOSTILE : "export const b = 2;"),
        },
        run_tests: { execute: () => toolError("tests_failed", "1 个测试失败") },
      },
      { maxSteps: 10 },
      undefined,
      {
        clock: () => {
          clock += 5;
          return clock;
        },
        extensions: [gate],
        // As the cost feature writes it: each model call's costUsd, null for an unknown price.
        trace: (e: TraceEvent) => {
          events.push(
            e.type === "model_completed" && e.usage !== undefined
              ? { ...e, costUsd: price(e.usage) }
              : e,
          );
        },
      },
    );
    return { events, result };
  }

  it("agrees with the capstone's report on every step's tokens, cost and calls", async () => {
    const { events } = await traceOfRun();
    const lines = events.map((e) => JSON.stringify({ ...e, runId: "lab-30" })).join("\n");
    const read = parseTraceLines(`${lines}\n`);
    if (!read.ok) throw new Error(read.message);
    const capstone = buildTraceReport(read.events).timeline.flatMap((item) =>
      item.kind === "step"
        ? [
            {
              step: item.step.step,
              inputTokens: item.step.inputTokens,
              outputTokens: item.step.outputTokens,
              costUsd: item.step.costUsd,
              calls: item.step.entries.flatMap((entry) =>
                entry.kind === "tool"
                  ? [
                      [
                        entry.call.callId,
                        entry.call.tool,
                        entry.call.ok,
                        entry.call.output,
                        entry.call.durationMs,
                      ],
                    ]
                  : [],
              ),
            },
          ]
        : [],
    );
    const mine = summarizeSteps(events).map((r) => ({
      step: r.step,
      inputTokens: r.inputTokens,
      outputTokens: r.outputTokens,
      costUsd: r.costUsd,
      calls: r.calls.map((c) => [c.callId, c.tool, c.ok, c.output, c.durationMs]),
    }));
    expect(
      mine.map((r) => r.step),
      "步的编号",
    ).toEqual(capstone.map((s) => s.step));
    for (const [index, expected] of capstone.entries()) {
      const step = expected.step;
      expect(mine[index]?.inputTokens, `第 ${step} 步的输入 token`).toBe(expected.inputTokens);
      expect(mine[index]?.outputTokens, `第 ${step} 步的输出 token`).toBe(expected.outputTokens);
      expect(mine[index]?.costUsd, `第 ${step} 步的费用`).toBe(expected.costUsd);
      expect(mine[index]?.calls, `第 ${step} 步的工具调用（callId、工具、ok、输出、用时）`).toEqual(
        expected.calls,
      );
    }
    expect(mine.map((r) => r.costUsd)[2], "第 3 步的价格未知").toBeNull();
  });

  it("adds up to the run's own usage", async () => {
    const { events, result } = await traceOfRun();
    const rows = summarizeSteps(events);
    const total = rows.reduce(
      (sum, r) => ({
        inputTokens: sum.inputTokens + r.inputTokens,
        outputTokens: sum.outputTokens + r.outputTokens,
      }),
      { inputTokens: 0, outputTokens: 0 },
    );
    expect(total, "每步的 token 加起来等于运行结果的 usage").toEqual(result.usage);
    expect(
      rows.flatMap((r) => r.rejections),
      "被拒绝的完成",
    ).toEqual([["no_test_evidence"]]);
  });

  it("shows a real tool's hostile output as text", async () => {
    const { events } = await traceOfRun();
    const page = summarizeSteps(events).map(renderStep).join("\n");
    expect(page, "这次运行有 4 步").toContain('data-step="4"');
    expect(page.match(/<pre class="output">/g), "3 次工具调用都有结果").toHaveLength(3);
    expect(strayTags(page), "工具输出里的标签成了页面的标签").toEqual([]);
    expect(preText(page, "output"), "a.js 的输出原样显示").toBe(HOSTILE);
  });
});
