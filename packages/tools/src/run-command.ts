import {
  artifactText,
  type BlockedOutcome,
  defineTool,
  type Tool,
  type ToolErrorResult,
  toolError,
} from "@coding-agent/agent-core";
import { z } from "zod";
import { type ApprovalOptions, createApprovalGate, type GatedCall } from "./approval-gate.ts";
import {
  ARTIFACT_NOTE_ROOM,
  fitsBudget,
  type KeepOutput,
  largestFitting,
  type ObservationBudget,
  observationBudget,
  omitMiddle,
  readArtifactNote,
} from "./observation-budget.ts";
import { bwrapCommand } from "./sandbox/bwrap.ts";
import { type ProcessOptions, type ProcessResult, runProcess } from "./sandbox/exec.ts";
import type { SandboxPolicy } from "./sandbox/policy.ts";
import { OWN_PROCESS_GROUP } from "./sandbox/process-group.ts";
import type { SandboxChoice } from "./sandbox/sandbox-mode.ts";

/**
 * What `run_command` returns when the command ended by itself (docs/contracts.md §6), so `timedOut`
 * is always false here. A command that outlives its timeout is the `timeout` error instead
 * (§6's error code): its message carries these same fields, with `timedOut: true`, the
 * signal that ended the group and whatever output was captured (head and tail).
 */
export type RunCommandResult = Omit<ProcessResult, "timedOut"> & {
  readonly timedOut: false;
  /** Set when the output was cut to the observation budget: what was left out and how to see it. */
  readonly note?: string;
  /** The artifact holding the whole output, when it was cut to the budget and kept (`keepOutput`). */
  readonly artifact?: string;
};

export const RunCommandInputSchema = z.object({
  argv: z.array(z.string()).min(1, "argv 至少要有程序名"),
  timeoutMs: z.int().min(1).optional(),
});

export type RunCommandInput = z.output<typeof RunCommandInputSchema>;

/**
 * How `run_command` behaves in one run. A program outside `--allow-command` needs
 * permission: `ask` consults `approver`; `deny` blocks; `auto` answers `not_allowed` (the
 * run goes on).
 */
export interface RunCommandOptions extends ApprovalOptions {
  readonly policy: SandboxPolicy;
  readonly sandbox: Exclude<SandboxChoice, { kind: "unavailable" }>;
  /** Default and ceiling of a call's `timeoutMs`. Defaults 30 s and 10 min. */
  readonly defaultTimeoutMs?: number;
  readonly maxTimeoutMs?: number;
  /** Bytes kept of each of stdout and stderr. Default 30,000. */
  readonly maxOutputBytes?: number;
  /** The run's observation budget: stdout and stderr are cut in the middle to fit it. */
  readonly budget?: ObservationBudget;
  /**
   * Hands stdout and stderr back whole (up to `maxOutputBytes`, default 1 MB then), not cut
   * to the budget: for a run that stores a larger result as an artifact (agent-core's
   * `createContextBudget`), which keeps head, tail and the id for the model.
   */
  readonly wholeOutput?: boolean;
  /**
   * Keeps an output cut to the budget whole (up to 1 MB a stream then), and the result
   * names the artifact instead of telling the model to run the command again.
   */
  readonly keepOutput?: KeepOutput;
  /** Runs the process; `runProcess` by default (lesson 12 plugs the learner's in here). */
  readonly runProcess?: (options: ProcessOptions) => Promise<ProcessResult>;
}

/**
 * A `run_command` executor for one run (it remembers "allow for the run" answers).
 * Calling it runs the whole call, approval included; `authorize` is the approval
 * step alone, for a runtime to ask before the call starts (agent-core's
 * `Tool.authorize`), so a refused call is never run, counted or traced as started.
 */
export interface RunCommand {
  (
    input: RunCommandInput,
    signal?: AbortSignal,
  ): Promise<RunCommandResult | ToolErrorResult | BlockedOutcome>;
  /**
   * `blockRun(...)` when the call needs a permission that is refused (`deny`, or `ask`
   * answered no, late or not at all); `undefined` when it may go on. An "allow once"
   * answer holds for this very `input` object only, for the next call with it.
   */
  authorize(input: RunCommandInput, signal?: AbortSignal): Promise<BlockedOutcome | undefined>;
}

/** Creates the `run_command` executor of one run. */
export function createRunCommand(options: RunCommandOptions): RunCommand {
  const gate = createApprovalGate({ ...options, auto: "not_allowed" });
  const budget = options.budget ?? observationBudget();
  const maxTimeoutMs = options.maxTimeoutMs ?? 600_000;

  async function authorize(
    input: RunCommandInput,
    signal?: AbortSignal,
  ): Promise<BlockedOutcome | undefined> {
    const program = await options.policy.resolveProgram(input.argv[0] ?? "");
    // A name the policy refuses outright is answered not_allowed when run: nothing to ask.
    if (!program.ok) return undefined;
    return gate.authorize(input, gatedCall(input, program), signal);
  }

  async function runCommand(
    input: RunCommandInput,
    signal?: AbortSignal,
  ): Promise<RunCommandResult | ToolErrorResult | BlockedOutcome> {
    const [name = "", ...args] = input.argv;
    // Resolved again, not taken from `authorize`: PATH may have changed, and only the path
    // that was allowed may run (the gate asks again for another one).
    const program = await options.policy.resolveProgram(name);
    if (!program.ok) return toolError("not_allowed", program.reason);
    // Called directly, without `authorize` first, the call is gated all the same.
    const refused = await gate.admit(input, gatedCall(input, program), signal);
    if (refused !== undefined) return refused;

    const timeoutMs = Math.min(input.timeoutMs ?? options.defaultTimeoutMs ?? 30_000, maxTimeoutMs);
    const command: [string, ...string[]] = [program.path, ...args];
    const { argv, group } =
      options.sandbox.kind === "bwrap"
        ? bwrapCommand({
            bwrap: options.sandbox.bwrap,
            workspace: options.policy.cwd,
            argv: command,
            ...(options.policy.readOnly === undefined ? {} : { readOnly: options.policy.readOnly }),
          })
        : { argv: command, group: OWN_PROCESS_GROUP };
    const processOptions: ProcessOptions = {
      argv: argv as [string, ...string[]],
      cwd: options.policy.cwd,
      env: options.policy.env,
      timeoutMs,
      maxOutputBytes:
        options.maxOutputBytes ??
        (options.wholeOutput || options.keepOutput !== undefined ? WHOLE_OUTPUT_BYTES : 30_000),
      ...(signal === undefined ? {} : { signal }),
    };
    // A plugged-in runner (lesson 12's) ends its processes its own way.
    const result = options.runProcess
      ? await options.runProcess(processOptions)
      : await runProcess(processOptions, group);
    if (result.timedOut) {
      // The same fields as a result, so the model reads what the command printed before it
      // was stopped exactly as it would have read a normal ending.
      const opening = `命令 ${JSON.stringify(input.argv)} 在 ${timeoutMs} ms 内没有结束，整个进程组已被终止。结束时的结果：`;
      return fitOutput(result, budget, (fitted) =>
        toolError("timeout", `${opening}${JSON.stringify(fitted)}`),
      );
    }
    const finished: RunCommandResult = { ...result, timedOut: false };
    if (options.wholeOutput) return finished;
    const fitted = fitOutput(finished, budget, (cut) => cut);
    if (fitted === finished) return finished;
    const kept = await keepWhole(finished);
    if (kept !== undefined) return kept;
    return {
      ...fitted,
      truncated: true,
      note:
        "输出超出观察预算，stdout / stderr 的中间已省略（见其中的标记）。要看省略的部分：让命令只输出需要的内容" +
        "（例如只跑一个文件、加过滤参数），或把输出写进工作区的文件，再用 read_file 分页读",
    };
  }

  /** The result cut to the budget with the whole output kept as an artifact, if it can be kept. */
  async function keepWhole(finished: RunCommandResult): Promise<RunCommandResult | undefined> {
    if (options.keepOutput === undefined) return undefined;
    const text = artifactText({ stdout: finished.stdout, stderr: finished.stderr });
    const id = await options.keepOutput(budget.redact?.(text) ?? text, "run_command");
    if (id === undefined) return undefined;
    const room = { ...budget, maxChars: budget.maxChars - ARTIFACT_NOTE_ROOM };
    const fitted = fitOutput(finished, room, (cut) => cut);
    const stderrNote =
      finished.stderr === "" ? "" : "（stdout 在前，stderr 在 --- stderr --- 一行之后）";
    return {
      ...fitted,
      truncated: true,
      artifact: id,
      note: `输出超出观察预算，stdout / stderr 的中间已省略。${readArtifactNote(id, `完整输出${stderrNote}`)}`,
    };
  }

  return Object.assign(runCommand, { authorize });
}

/** The permission a resolved program needs: none when it is on the allowlist. */
function gatedCall(
  input: RunCommandInput,
  program: { path: string; allowed: boolean },
): GatedCall | undefined {
  if (program.allowed) return undefined;
  return {
    request: {
      tool: "run_command",
      argv: input.argv,
      program: program.path,
      reason: `${input.argv[0] ?? ""} 不在允许的命令里（--allow-command）`,
    },
    undone: `${JSON.stringify(input.argv)} 没有执行`,
  };
}

/**
 * `wrap(result)` with stdout and stderr cut in the middle to the longest length at which
 * the wrapped value fits the budget (room kept for the note a cut result carries).
 * `result` itself when it fits whole.
 */
function fitOutput<R extends { readonly stdout: string; readonly stderr: string }, W>(
  result: R,
  budget: ObservationBudget,
  wrap: (result: R) => W,
): W {
  const whole = wrap(result);
  if (fitsBudget(whole, budget)) return whole;
  const roomForNote = { maxChars: budget.maxChars - NOTE_ROOM };
  const cut = (keep: number) => ({
    ...result,
    stdout: omitMiddle(result.stdout, keep),
    stderr: omitMiddle(result.stderr, keep),
  });
  const longest = Math.max(result.stdout.length, result.stderr.length);
  const keep = largestFitting(longest, (n) => fitsBudget(wrap(cut(n)), roomForNote));
  return wrap(cut(keep));
}

/** Bytes kept of each stream with `wholeOutput`: the artifact's size, still bounded. */
const WHOLE_OUTPUT_BYTES = 1_000_000;

/** Characters kept free for the note of a cut `run_command` result. */
const NOTE_ROOM = 200;

/**
 * `run_command` as a tool (docs/contracts.md §6), over `createRunCommand(options)`. Asked before the
 * call starts: a refused call ends the run blocked without running, and is neither counted
 * nor traced as started.
 */
export function createRunCommandTool(options: RunCommandOptions): Tool {
  const runCommand = createRunCommand(options);
  return defineTool({
    description:
      "在工作区运行程序（不经过 shell）：{ argv, timeoutMs? } → { exitCode, signal, stdout, stderr, truncated, timedOut }；" +
      "超时返回 timeout 错误，消息里是同样的字段（timedOut: true）",
    inputSchema: RunCommandInputSchema,
    authorize: (input, signal) => runCommand.authorize(input, signal),
    execute: (input, signal) => runCommand(input, signal),
  });
}
