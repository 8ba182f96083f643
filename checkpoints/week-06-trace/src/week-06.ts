import {
  cliJson,
  jsonOrUndefined,
  judgeByRefusal,
  refuse,
  type Verdict,
} from "@bootcamp/checkpoint-shared";
import { checkTrace, type TraceEvent } from "@coding-agent/agent-core";
import type { CapturedCliRun } from "@coding-agent/cli";
import { z } from "zod";

/** What the week-6 checkpoint must prove, in its own words. */
export const WEEK_06_SUMMARY =
  "每次运行写下 seq 连续、已脱敏的 trace.jsonl，并以 OpenTelemetry GenAI span 导出；离线重放得到同样的结果和退出码；成本预算停下运行；HTML 报告把工具输出里的 <script> 显示成文字";

/** A key planted in a tool input: it must reach no trace line, no span, no page. */
export const PLANTED_SECRET = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789";
/** A tool output a careless report would run as code. */
export const HOSTILE_TEXT = "<script>window.__pwned=1</script>";
/** The cost budget of the run that must stop, in USD. */
export const COST_BUDGET_USD = 0.01;

/** One `coding-agent` invocation: its exit code and what it printed. */
export type CliRun = CapturedCliRun;

/** The checkpoint's real runs and what they left behind. */
export interface Week06Run {
  /** The fix, traced to `trace.jsonl` and exported to a loopback OTLP collector. */
  readonly traced: CliRun;
  /** That run's `trace.jsonl`, as written. */
  readonly traceText: string;
  /** Every OTLP/JSON request body the collector received. */
  readonly otlpBodies: readonly string[];
  /** `coding-agent replay <runId> --json` of the traced run. */
  readonly replayed: CliRun;
  /** The same fix under `--max-cost-usd`, and its replay. */
  readonly costStop: CliRun;
  readonly costReplayed: CliRun;
  /** `coding-agent trace <runId> --html <file>` of the traced run, and the page it wrote. */
  readonly report: CliRun;
  readonly page: string;
}

/** The parts of a `--json` result the verdict reads (checked: they cross a process boundary). */
const ResultSchema = z.looseObject({
  status: z.string(),
  code: z.string(),
  steps: z.number(),
  toolCalls: z.number(),
  runId: z.string().optional(),
  costUsd: z.number().nullable().optional(),
  messages: z.array(z.unknown()),
});
type Result = z.infer<typeof ResultSchema>;

const TraceLineSchema = z.looseObject({
  seq: z.number(),
  atMs: z.number(),
  runId: z.string(),
  type: z.string(),
  costUsd: z.number().nullable().optional(),
});

interface Span {
  readonly name: string;
  readonly spanId: string;
  readonly parentSpanId: string;
}
const OtlpBodySchema = z.looseObject({
  resourceSpans: z.array(
    z.looseObject({
      scopeSpans: z.array(
        z.looseObject({
          spans: z.array(
            z.looseObject({
              name: z.string(),
              spanId: z.string(),
              parentSpanId: z.string().optional(),
            }),
          ),
        }),
      ),
    }),
  ),
});

/** The five events lesson 26 names, which every traced run must hold. */
const LESSON_EVENTS = [
  "run_started",
  "model_completed",
  "tool_started",
  "tool_completed",
  "run_finished",
];

const resultOf = (name: string, run: CliRun): Result => cliJson(name, run, ResultSchema);

/** Judges the checkpoint's runs: the two lines it prints, and exit 1 unless all holds. */
export function judgeWeek06(run: Week06Run): Verdict<6> {
  return judgeByRefusal(6, WEEK_06_SUMMARY, () => [
    ...judgeTrace(run),
    judgeSpans(run),
    judgeCost(run),
    judgeReplay(run),
    judgeReport(run),
  ]);
}

function judgeTrace(run: Week06Run): string[] {
  const result = resultOf("带 trace 的运行", run.traced);
  if (run.traced.exitCode !== 0 || result.status !== "completed") {
    refuse(
      `带 trace 的运行应以 completed 结束（退出码 0），实际 ${result.status}（${run.traced.exitCode}）`,
    );
  }
  const lines = run.traceText.split("\n");
  if (lines.pop() !== "") refuse("trace.jsonl 的最后一行没有换行：写了一半");
  const events = lines.map((line, index) => {
    const json = jsonOrUndefined(line);
    if (json === undefined) return refuse(`trace.jsonl 第 ${index + 1} 行不是 JSON`);
    const parsed = TraceLineSchema.safeParse(json);
    return parsed.success
      ? parsed.data
      : refuse(`trace.jsonl 第 ${index + 1} 行缺少 seq/atMs/runId/type`);
  });
  const gap = events.findIndex((event, index) => event.seq !== index + 1);
  if (gap >= 0)
    refuse(`trace.jsonl 第 ${gap + 1} 行的 seq 是 ${events[gap]?.seq}，应为 ${gap + 1}`);
  const strangers = events.filter((event) => event.runId !== result.runId);
  if (strangers.length > 0)
    refuse(`trace.jsonl 有 ${strangers.length} 行的 runId 不是 ${result.runId}`);
  const missing = LESSON_EVENTS.filter((type) => !events.some((event) => event.type === type));
  if (missing.length > 0) refuse(`trace.jsonl 缺少事件：${missing.join("、")}`);
  const checked = checkTrace(events as unknown as TraceEvent[]);
  if (!checked.ok) refuse(`trace 不成立：${checked.message}`);
  if (run.traceText.includes(PLANTED_SECRET)) refuse("trace.jsonl 里出现了没有脱敏的密钥");
  const costs = events.flatMap((event) =>
    event.type === "model_completed" && typeof event.costUsd === "number" ? [event.costUsd] : [],
  );
  const total = costs.reduce((sum, cost) => sum + cost, 0);
  if (typeof result.costUsd !== "number" || Math.abs(total - result.costUsd) > 1e-9) {
    refuse(`结果的 costUsd（${result.costUsd}）不等于各步 costUsd 之和（${total}）`);
  }
  return [
    `trace:${events.length} events,seq 1..${events.length},one runId,checkTrace ok,secret masked`,
    `cost:${result.steps} steps,$${result.costUsd.toFixed(5)} = Σ model_completed.costUsd`,
  ];
}

function judgeSpans(run: Week06Run): string {
  const spans: Span[] = run.otlpBodies.flatMap((body) => {
    const parsed = OtlpBodySchema.safeParse(jsonOrUndefined(body));
    if (!parsed.success) return refuse("OTLP 收集器收到的请求不是 OTLP/JSON");
    return parsed.data.resourceSpans.flatMap((resource) =>
      resource.scopeSpans.flatMap((scope) =>
        scope.spans.map((span) => ({ ...span, parentSpanId: span.parentSpanId ?? "" })),
      ),
    );
  });
  if (run.otlpBodies.some((body) => body.includes(PLANTED_SECRET))) {
    refuse("OTLP 导出里出现了没有脱敏的密钥");
  }
  const roots = spans.filter((span) => span.name === "invoke_agent");
  if (roots.length !== 1) refuse(`应有 1 个 invoke_agent span，收到 ${roots.length} 个`);
  const root = roots[0] as Span;
  const chats = spans.filter((span) => span.name.startsWith("chat "));
  const tools = spans.filter((span) => span.name.startsWith("execute_tool "));
  const steps = resultOf("带 trace 的运行", run.traced).steps;
  const toolCalls = resultOf("带 trace 的运行", run.traced).toolCalls;
  if (chats.length !== steps)
    refuse(`应有 ${steps} 个 chat span（每次模型调用一个），收到 ${chats.length} 个`);
  if (tools.length !== toolCalls) {
    refuse(`应有 ${toolCalls} 个 execute_tool span（每次工具调用一个），收到 ${tools.length} 个`);
  }
  const orphans = [...chats, ...tools].filter((span) => span.parentSpanId !== root.spanId);
  if (orphans.length > 0)
    refuse(`${orphans.map((span) => span.name).join("、")} 不是 invoke_agent 的子 span`);
  const names = [...new Set(tools.map((span) => span.name.slice("execute_tool ".length)))];
  return `otel:invoke_agent→${chats.length} chat,${tools.length} execute_tool (${names.join("/")}),all children`;
}

function judgeReplay(run: Week06Run): string {
  const pairs = [
    ["带 trace 的运行", run.traced, run.replayed],
    ["成本预算停下的运行", run.costStop, run.costReplayed],
  ] as const;
  const shown = pairs.map(([name, original, replay]) => {
    const before = resultOf(name, original);
    const after = resultOf(`${name}的重放`, replay);
    if (replay.exitCode !== original.exitCode) {
      refuse(`${name}的重放退出码 ${replay.exitCode}，原来是 ${original.exitCode}`);
    }
    for (const key of ["status", "code", "steps", "toolCalls", "messages"] as const) {
      if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) {
        refuse(`${name}的重放与原运行的 ${key} 不同`);
      }
    }
    return `${after.code} exit ${replay.exitCode}`;
  });
  return `replay:${shown.join(", ")} = original (status, code, steps, toolCalls, messages)`;
}

function judgeCost(run: Week06Run): string {
  const result = resultOf("成本预算停下的运行", run.costStop);
  if (
    run.costStop.exitCode !== 3 ||
    result.status !== "budget_exceeded" ||
    result.code !== "max_cost"
  ) {
    refuse(
      `成本预算应以 budget_exceeded / max_cost 停下（退出码 3），实际 ${result.status} / ${result.code}（${run.costStop.exitCode}）`,
    );
  }
  const spent = result.costUsd;
  if (typeof spent !== "number" || spent < COST_BUDGET_USD) {
    refuse(`停下时的 costUsd（${spent}）没有达到预算 $${COST_BUDGET_USD}`);
  }
  return `cost:max_cost after ${result.steps} steps,$${spent.toFixed(5)} ≥ $${COST_BUDGET_USD},exit 3`;
}

function judgeReport(run: Week06Run): string {
  if (run.report.exitCode !== 0) refuse(`coding-agent trace --html 退出码 ${run.report.exitCode}`);
  const { page } = run;
  const runId = resultOf("带 trace 的运行", run.traced).runId ?? "";
  if (!page.includes(runId)) refuse("HTML 报告里没有这次运行的 runId");
  if (page.includes(HOSTILE_TEXT)) refuse("HTML 报告把工具输出里的 <script> 原样放进了页面");
  if (!page.includes("&lt;script&gt;window.__pwned=1&lt;/script&gt;")) {
    refuse("HTML 报告里看不到转义后的工具输出");
  }
  if (page.includes(PLANTED_SECRET)) refuse("HTML 报告里出现了没有脱敏的密钥");
  if (/\s(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i.test(page)) refuse("HTML 报告会从网络加载内容");
  return `report:html self-contained,<script> shown as text,secret masked`;
}
