import { parseArgs } from "node:util";
import { DEFAULT_CONCURRENCY } from "./harness.ts";
import { PASS_RATE_TOLERANCE } from "./pass-rate-gate.ts";
import { parseQueueUrl, type RedisAddress } from "./queue.ts";

const tolerancePoints = Math.round(PASS_RATE_TOLERANCE * 100);

/** Flags of `coding-agent eval`, with their Chinese help text. */
export const EVAL_FLAGS = {
  concurrency: { type: "string", help: `同时运行的任务数（默认 ${DEFAULT_CONCURRENCY}）` },
  "timeout-ms": {
    type: "string",
    help: "每个任务的超时，毫秒（任务的 timeoutMs 优先；默认 120000）",
  },
  trials: {
    type: "string",
    help: `每个任务跑 k 次（默认 1），每次一个独立工作区；报告给出 pass@1 和 pass@k（无偏估计）`,
  },
  "keep-workspaces": {
    type: "boolean",
    help: "把每次试验的最终工作区留在作业目录里，供 coding-agent eval regrade 重新评分",
  },
  json: { type: "boolean", help: "以 JSON 输出报告" },
  junit: { type: "string", help: "另外写一个 JUnit XML 文件（每个任务一个 testcase）" },
  html: { type: "string", help: "另外写一个自包含的 HTML 报告" },
  baseline: {
    type: "string",
    help: `基线结果文件（之前的 --json 输出）：基线中通过、这次失败的任务是回归，退出码 1；--trials 大于 1 时比较每个任务的通过率，比基线低超过 ${tolerancePoints} 个百分点才算回归`,
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

/** How a report is given: on stdout as a table or JSON, in files, against a baseline. */
export interface ReportOptions {
  readonly json: boolean;
  readonly junit?: string;
  readonly html?: string;
  readonly baseline?: string;
  readonly updateBaseline: boolean;
}

/** A parsed `coding-agent eval` command line. */
export type EvalCommand =
  | { readonly kind: "help" }
  | ({
      readonly kind: "suite";
      readonly suiteDir: string;
      readonly concurrency: number;
      readonly timeoutMs?: number;
      /** k of `--trials k`: each task runs k times (absent: once). */
      readonly trials?: number;
      /** `--keep-workspaces`: each trial's final workspace stays in the job folder. */
      readonly keepWorkspaces?: true;
      readonly queue?: RedisAddress;
    } & ReportOptions)
  | ({
      /** `eval resume <job>`: the job's trials that have no result, then the whole report. */
      readonly kind: "resume";
      readonly job: string;
      readonly concurrency: number;
      readonly queue?: RedisAddress;
    } & ReportOptions)
  | ({
      /** `eval regrade <job>`: the graders again on the job's kept workspaces, no model call. */
      readonly kind: "regrade";
      readonly job: string;
      readonly concurrency: number;
    } & ReportOptions)
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
    "      coding-agent eval resume <作业> [选项]     只跑作业里还没有结果的试验，再给出完整报告",
    "      coding-agent eval regrade <作业> [选项]    在保留的工作区上重新跑评分器，不调用模型",
    "      coding-agent eval worker --queue redis://主机:端口 [--concurrency N]",
    "",
    "任务集：每个任务一个目录 <任务集>/<id>/task.json",
    "作业：每次评测把每次试验的结果在它结束时写进 $CODING_AGENT_HOME/evals/<作业 id>/（一次试验一个文件，运行另存为 ATIF 轨迹 atif/<任务 id>/<n>.json；超时或崩溃的试验是运行到被杀为止的部分，标明不完整；resume 和 regrade 从运行目录补写旧作业缺的轨迹，不调用模型），开始时打印作业 id",
    "",
    "选项：",
    ...Object.entries(EVAL_FLAGS).map(([name, flag]) => {
      const left = flag.type === "string" ? `--${name} <值>` : `--${name}`;
      return `  ${left.padEnd(30)}${flag.help}`;
    }),
    "",
    `pass@k：每个任务 n 次试验、c 次通过，pass@k = 1 − C(n−c, k) / C(n, k)，再对任务取平均；--trials 大于 1 时基线门比较通过率：某个任务的通过率比基线低超过 ${tolerancePoints} 个百分点才算回归`,
    "退出码：0 任务集跑完（失败的任务是结果，不是错误）· 1 有回归或评测框架错误（超时、崩溃）· 2 用法错误 · 130 已取消",
  ].join("\n");
}

const positive = (flag: string, text: string | undefined): number | string | undefined => {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text)))
    return `--${flag} 需要正整数，收到 ${text}`;
  return Number(text);
};

type EvalValues = ReturnType<
  typeof parseArgs<{ options: typeof EVAL_FLAGS; allowPositionals: true; strict: true }>
>["values"];

type Parsed =
  | { readonly ok: true; readonly command: EvalCommand }
  | { readonly ok: false; readonly message: string };

/** What every subcommand reads the same way: the numbers, the lanes, the queue. */
interface CommonOptions {
  readonly values: EvalValues;
  readonly numbers: Readonly<Partial<Record<(typeof NUMBER_FLAGS)[number], number>>>;
  readonly concurrency: number;
  readonly queue?: RedisAddress;
}

const NUMBER_FLAGS = [
  "concurrency",
  "timeout-ms",
  "lock-duration-ms",
  "stalled-interval-ms",
  "trials",
] as const;

/** A usage error: the message, then the usage text. */
const bad = (message: string) => ({ ok: false as const, message: `${message}\n\n${evalUsage()}` });

/** Parses the arguments after `eval`; a Chinese message for a usage error (exit 2). */
export function parseEvalArgs(argv: readonly string[]): Parsed {
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
  const common = commonOptions(values);
  if (typeof common === "string") return bad(common);
  const [target, ...rest] = positionals;
  if (target === "resume" || target === "regrade") return parseJobCommand(target, rest, common);
  if (positionals.length !== 1)
    return bad(
      positionals.length === 0
        ? "缺少任务集目录：coding-agent eval <任务集目录>"
        : `只能给一个任务集目录，收到 ${positionals.length} 个：${positionals.join(" ")}`,
    );
  if (target === "worker") return parseWorkerCommand(common);
  return parseSuiteCommand(target as string, common);
}

/** The number flags and the queue, checked; a message for the first one that is wrong. */
function commonOptions(values: EvalValues): CommonOptions | string {
  const numbers: Partial<Record<(typeof NUMBER_FLAGS)[number], number>> = {};
  for (const flag of NUMBER_FLAGS) {
    const value = positive(flag, values[flag]);
    if (typeof value === "string") return value;
    if (value !== undefined) numbers[flag] = value;
  }
  let queue: RedisAddress | undefined;
  if (values.queue !== undefined) {
    const address = parseQueueUrl(values.queue);
    if (!address.ok) return address.message;
    queue = address.address;
  }
  return {
    values,
    numbers,
    concurrency: numbers.concurrency ?? DEFAULT_CONCURRENCY,
    ...(queue === undefined ? {} : { queue }),
  };
}

/** `eval resume <job>` and `eval regrade <job>`: one job, and nothing the job recorded. */
function parseJobCommand(
  target: "resume" | "regrade",
  rest: readonly string[],
  common: CommonOptions,
): Parsed {
  const { values, queue, concurrency } = common;
  if (rest.length !== 1)
    return bad(
      rest.length === 0
        ? `缺少作业：coding-agent eval ${target} <作业 id 或作业目录>`
        : `只能给一个作业，收到 ${rest.length} 个：${rest.join(" ")}`,
    );
  // What a job ran is the job's: its trials, timeout and kept workspaces are recorded.
  const recorded = (["trials", "timeout-ms", "keep-workspaces"] as const).find(
    (flag) => values[flag] !== undefined,
  );
  if (recorded !== undefined) return bad(`--${recorded} 由作业记录决定，eval ${target} 不接受`);
  if (target === "regrade" && queue !== undefined)
    return bad("eval regrade 在本机保留的工作区上评分，不接受 --queue");
  const report = reportOptionsOf(values);
  if (typeof report === "string") return bad(report);
  const job = rest[0] as string;
  return {
    ok: true,
    command:
      target === "resume"
        ? { kind: "resume", job, concurrency, ...(queue === undefined ? {} : { queue }), ...report }
        : { kind: "regrade", job, concurrency, ...report },
  };
}

/** `eval worker --queue …`: the queue, the lanes, the lock settings, and no report flag. */
function parseWorkerCommand(common: CommonOptions): Parsed {
  const { values, numbers, queue, concurrency } = common;
  if (queue === undefined) return bad("eval worker 需要 --queue redis://主机:端口");
  const suiteOnly = (
    [
      "json",
      "junit",
      "html",
      "baseline",
      "update-baseline",
      "timeout-ms",
      "trials",
      "keep-workspaces",
    ] as const
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

/** `eval <suite>`: a new job, with its trials, timeout and kept workspaces. */
function parseSuiteCommand(suiteDir: string, common: CommonOptions): Parsed {
  const { values, numbers, queue, concurrency } = common;
  const report = reportOptionsOf(values);
  if (typeof report === "string") return bad(report);
  if (values["keep-workspaces"] === true && queue !== undefined)
    return bad("--keep-workspaces 不能和 --queue 一起用：工作区会留在各个 worker 的机器上");
  return {
    ok: true,
    command: {
      kind: "suite",
      suiteDir,
      concurrency,
      ...(numbers["timeout-ms"] === undefined ? {} : { timeoutMs: numbers["timeout-ms"] }),
      ...(numbers.trials === undefined ? {} : { trials: numbers.trials }),
      ...(values["keep-workspaces"] === true ? { keepWorkspaces: true as const } : {}),
      ...(queue === undefined ? {} : { queue }),
      ...report,
    },
  };
}

/** How the report is given, for the commands that give one; a message when a flag is wrong. */
function reportOptionsOf(values: EvalValues): ReportOptions | string {
  if (values["lock-duration-ms"] !== undefined || values["stalled-interval-ms"] !== undefined)
    return "--lock-duration-ms、--stalled-interval-ms 只用于 coding-agent eval worker";
  if (values["update-baseline"] === true && values.baseline === undefined)
    return "--update-baseline 需要 --baseline <文件>（结果写到哪里）";
  for (const flag of ["junit", "html", "baseline"] as const) {
    if (values[flag]?.trim() === "") return `--${flag} 需要文件路径`;
  }
  return {
    json: values.json === true,
    ...(values.junit === undefined ? {} : { junit: values.junit }),
    ...(values.html === undefined ? {} : { html: values.html }),
    ...(values.baseline === undefined ? {} : { baseline: values.baseline }),
    updateBaseline: values["update-baseline"] === true,
  };
}
