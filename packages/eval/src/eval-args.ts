import { parseArgs } from "node:util";
import { DEFAULT_CONCURRENCY } from "./harness.ts";
import { parseQueueUrl, type RedisAddress } from "./queue.ts";

/** Flags of `coding-agent eval`, with their Chinese help text. */
export const EVAL_FLAGS = {
  concurrency: { type: "string", help: `同时运行的任务数（默认 ${DEFAULT_CONCURRENCY}）` },
  "timeout-ms": {
    type: "string",
    help: "每个任务的超时，毫秒（任务的 timeoutMs 优先；默认 120000）",
  },
  json: { type: "boolean", help: "以 JSON 输出报告" },
  junit: { type: "string", help: "另外写一个 JUnit XML 文件（每个任务一个 testcase）" },
  html: { type: "string", help: "另外写一个自包含的 HTML 报告" },
  baseline: {
    type: "string",
    help: "基线结果文件（之前的 --json 输出）：基线中通过、这次失败的任务是回归，退出码 1",
  },
  "update-baseline": { type: "boolean", help: "把这次的结果写进 --baseline 文件" },
  queue: {
    type: "string",
    help: "redis://主机:端口：把任务放进 BullMQ 队列，由 coding-agent eval worker 执行",
  },
  "lock-duration-ms": {
    type: "string",
    help: "（worker）任务锁的时长，毫秒：worker 死掉后这么久任务交给别的 worker（默认 15000）",
  },
  "stalled-interval-ms": {
    type: "string",
    help: "（worker）检查停滞任务的间隔，毫秒（默认 10000）",
  },
  help: { type: "boolean", help: "显示帮助" },
} as const;

/** A parsed `coding-agent eval` command line. */
export type EvalCommand =
  | { readonly kind: "help" }
  | {
      readonly kind: "suite";
      readonly suiteDir: string;
      readonly concurrency: number;
      readonly timeoutMs?: number;
      readonly json: boolean;
      readonly junit?: string;
      readonly html?: string;
      readonly baseline?: string;
      readonly updateBaseline: boolean;
      readonly queue?: RedisAddress;
    }
  | {
      readonly kind: "worker";
      readonly queue: RedisAddress;
      readonly concurrency: number;
      readonly lockDurationMs?: number;
      readonly stalledIntervalMs?: number;
    };

/** The usage text of `coding-agent eval`. */
export function evalUsage(): string {
  return [
    "用法：coding-agent eval <任务集目录> [选项]",
    "      coding-agent eval worker --queue redis://主机:端口 [--concurrency N]",
    "",
    "任务集：每个任务一个目录 <任务集>/<id>/task.json",
    "",
    "选项：",
    ...Object.entries(EVAL_FLAGS).map(([name, flag]) => {
      const left = flag.type === "string" ? `--${name} <值>` : `--${name}`;
      return `  ${left.padEnd(30)}${flag.help}`;
    }),
    "",
    "退出码：0 任务集跑完（失败的任务是结果，不是错误）· 1 有回归或评测框架错误（超时、崩溃）· 2 用法错误 · 130 已取消",
  ].join("\n");
}

const positive = (flag: string, text: string | undefined): number | string | undefined => {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text)))
    return `--${flag} 需要正整数，收到 ${text}`;
  return Number(text);
};

/** Parses the arguments after `eval`; a Chinese message for a usage error (exit 2). */
export function parseEvalArgs(
  argv: readonly string[],
):
  | { readonly ok: true; readonly command: EvalCommand }
  | { readonly ok: false; readonly message: string } {
  let parsed: ReturnType<
    typeof parseArgs<{ options: typeof EVAL_FLAGS; allowPositionals: true; strict: true }>
  >;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: EVAL_FLAGS,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    return { ok: false, message: `eval 的参数无效：${(error as Error).message}\n\n${evalUsage()}` };
  }
  const { values, positionals } = parsed;
  if (values.help === true) return { ok: true, command: { kind: "help" } };
  const bad = (message: string) => ({
    ok: false as const,
    message: `${message}\n\n${evalUsage()}`,
  });
  const numbers: Record<string, number | undefined> = {};
  for (const flag of [
    "concurrency",
    "timeout-ms",
    "lock-duration-ms",
    "stalled-interval-ms",
  ] as const) {
    const value = positive(flag, values[flag]);
    if (typeof value === "string") return bad(value);
    numbers[flag] = value;
  }
  const concurrency = numbers.concurrency ?? DEFAULT_CONCURRENCY;
  let queue: RedisAddress | undefined;
  if (values.queue !== undefined) {
    const address = parseQueueUrl(values.queue);
    if (!address.ok) return bad(address.message);
    queue = address.address;
  }
  if (positionals.length !== 1)
    return bad(
      positionals.length === 0
        ? "缺少任务集目录：coding-agent eval <任务集目录>"
        : `只能给一个任务集目录，收到 ${positionals.length} 个：${positionals.join(" ")}`,
    );
  const target = positionals[0] as string;
  if (target === "worker") {
    if (queue === undefined) return bad("eval worker 需要 --queue redis://主机:端口");
    const suiteOnly = (
      ["json", "junit", "html", "baseline", "update-baseline", "timeout-ms"] as const
    ).find((flag) => values[flag] !== undefined);
    if (suiteOnly !== undefined)
      return bad(`--${suiteOnly} 只用于 coding-agent eval <任务集目录>，worker 不接受`);
    return {
      ok: true,
      command: {
        kind: "worker",
        queue,
        concurrency,
        ...(numbers["lock-duration-ms"] === undefined
          ? {}
          : { lockDurationMs: numbers["lock-duration-ms"] }),
        ...(numbers["stalled-interval-ms"] === undefined
          ? {}
          : { stalledIntervalMs: numbers["stalled-interval-ms"] }),
      },
    };
  }
  if (values["lock-duration-ms"] !== undefined || values["stalled-interval-ms"] !== undefined)
    return bad("--lock-duration-ms、--stalled-interval-ms 只用于 coding-agent eval worker");
  if (values["update-baseline"] === true && values.baseline === undefined)
    return bad("--update-baseline 需要 --baseline <文件>（结果写到哪里）");
  for (const flag of ["junit", "html", "baseline"] as const) {
    if (values[flag]?.trim() === "") return bad(`--${flag} 需要文件路径`);
  }
  return {
    ok: true,
    command: {
      kind: "suite",
      suiteDir: target,
      concurrency,
      ...(numbers["timeout-ms"] === undefined ? {} : { timeoutMs: numbers["timeout-ms"] }),
      json: values.json === true,
      ...(values.junit === undefined ? {} : { junit: values.junit }),
      ...(values.html === undefined ? {} : { html: values.html }),
      ...(values.baseline === undefined ? {} : { baseline: values.baseline }),
      updateBaseline: values["update-baseline"] === true,
      ...(queue === undefined ? {} : { queue }),
    },
  };
}
