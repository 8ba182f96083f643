import {
  type BlockedOutcome,
  blockRun,
  type ToolErrorResult,
  toolError,
} from "@coding-agent/agent-core";
import { z } from "zod";
import { type ApprovalMode, type Approver, requestApproval } from "./approvals.ts";
import { buildBwrapArgv } from "./sandbox/bwrap.ts";
import { type ProcessOptions, type ProcessResult, runProcess } from "./sandbox/exec.ts";
import type { SandboxPolicy } from "./sandbox/policy.ts";
import type { SandboxChoice } from "./sandbox/sandbox-mode.ts";

/**
 * What `run_command` returns when the command ended by itself (design §6), so `timedOut`
 * is always false here. A command that outlives its timeout is the `timeout` error instead
 * (§6's error code): its message carries these same fields, with `timedOut: true`, the
 * signal that ended the group and whatever output was captured (head and tail).
 */
export type RunCommandResult = Omit<ProcessResult, "timedOut"> & { readonly timedOut: false };

export const RunCommandInputSchema = z.object({
  argv: z.array(z.string()).min(1, "argv 至少要有程序名"),
  timeoutMs: z.int().min(1).optional(),
});

export type RunCommandInput = z.output<typeof RunCommandInputSchema>;

/** How `run_command` behaves in one run. */
export interface RunCommandOptions {
  readonly policy: SandboxPolicy;
  readonly sandbox: Exclude<SandboxChoice, { kind: "unavailable" }>;
  /** `ask` consults `approver`; `deny` blocks; `auto` answers `not_allowed` (the run goes on). */
  readonly approval: ApprovalMode;
  /** Consulted under `ask`. */
  readonly approver?: Approver;
  /** How long an approval may take before it counts as a refusal. Default 60 s. */
  readonly approvalTimeoutMs?: number;
  /** Default and ceiling of a call's `timeoutMs`. Defaults 30 s and 10 min. */
  readonly defaultTimeoutMs?: number;
  readonly maxTimeoutMs?: number;
  /** Bytes kept of each of stdout and stderr. Default 30,000. */
  readonly maxOutputBytes?: number;
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
  const allowedForRun = new Set<string>();
  /** Inputs allowed once, with the program path that was allowed. */
  const allowedOnce = new WeakMap<RunCommandInput, string>();
  const maxTimeoutMs = options.maxTimeoutMs ?? 600_000;
  const notAllowed = (name: string) => `${name} 不在允许的命令里（--allow-command）`;
  const mayRun = (input: RunCommandInput, program: { path: string; allowed: boolean }) =>
    program.allowed || allowedForRun.has(program.path) || allowedOnce.get(input) === program.path;

  async function authorize(
    input: RunCommandInput,
    signal?: AbortSignal,
  ): Promise<BlockedOutcome | undefined> {
    const name = input.argv[0] ?? "";
    const program = await options.policy.resolveProgram(name);
    // A name the policy refuses outright is answered not_allowed when run: nothing to ask.
    if (!program.ok || mayRun(input, program)) return undefined;
    const reason = notAllowed(name);
    switch (options.approval) {
      case "auto":
        // Not asked and not blocked: running it answers not_allowed, and the run goes on.
        return undefined;
      case "deny":
        return blockRun(`${reason}；--approval deny：${JSON.stringify(input.argv)} 没有执行`);
      case "ask": {
        const outcome = await requestApproval({
          approver: options.approver ?? (async () => "deny"),
          request: { tool: "run_command", argv: input.argv, program: program.path, reason },
          timeoutMs: options.approvalTimeoutMs ?? 60_000,
          ...(signal === undefined ? {} : { signal }),
        });
        if (!outcome.allowed)
          return blockRun(`${reason}；${outcome.reason}：${JSON.stringify(input.argv)} 没有执行`);
        if (outcome.forRun) allowedForRun.add(program.path);
        else allowedOnce.set(input, program.path);
        return undefined;
      }
      default: {
        const unreachable: never = options.approval;
        throw new TypeError(`unhandled approval mode ${String(unreachable)}`);
      }
    }
  }

  async function runCommand(
    input: RunCommandInput,
    signal?: AbortSignal,
  ): Promise<RunCommandResult | ToolErrorResult | BlockedOutcome> {
    // Called directly, without `authorize` first, the call is gated all the same.
    const blocked = await authorize(input, signal);
    if (blocked !== undefined) return blocked;
    const [name = "", ...args] = input.argv;
    // Resolved again, and run only if this path is the one allowed: PATH may have changed.
    const program = await options.policy.resolveProgram(name);
    if (!program.ok) return toolError("not_allowed", program.reason);
    const allowed = mayRun(input, program);
    // "Allow once" is used up by this call.
    allowedOnce.delete(input);
    if (!allowed) return toolError("not_allowed", notAllowed(name));

    const timeoutMs = Math.min(input.timeoutMs ?? options.defaultTimeoutMs ?? 30_000, maxTimeoutMs);
    const command: [string, ...string[]] = [program.path, ...args];
    const argv =
      options.sandbox.kind === "bwrap"
        ? buildBwrapArgv({
            bwrap: options.sandbox.bwrap,
            workspace: options.policy.cwd,
            argv: command,
          })
        : command;
    const result = await (options.runProcess ?? runProcess)({
      argv: argv as [string, ...string[]],
      cwd: options.policy.cwd,
      env: options.policy.env,
      timeoutMs,
      maxOutputBytes: options.maxOutputBytes ?? 30_000,
      ...(signal === undefined ? {} : { signal }),
    });
    if (result.timedOut) {
      // The same fields as a result, so the model reads what the command printed before it
      // was stopped exactly as it would have read a normal ending.
      return toolError(
        "timeout",
        `命令 ${JSON.stringify(input.argv)} 在 ${timeoutMs} ms 内没有结束，整个进程组已被终止。` +
          `结束时的结果：${JSON.stringify(result)}`,
      );
    }
    return { ...result, timedOut: false };
  }

  return Object.assign(runCommand, { authorize });
}
