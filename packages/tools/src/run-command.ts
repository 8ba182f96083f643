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

/** A `run_command` executor for one run (it remembers "allow for the run" answers). */
export function createRunCommand(
  options: RunCommandOptions,
): (
  input: RunCommandInput,
  signal?: AbortSignal,
) => Promise<RunCommandResult | ToolErrorResult | BlockedOutcome> {
  const allowedForRun = new Set<string>();
  const maxTimeoutMs = options.maxTimeoutMs ?? 600_000;
  return async (input, signal) => {
    const [name = "", ...args] = input.argv;
    const program = await options.policy.resolveProgram(name);
    if (!program.ok) return toolError("not_allowed", program.reason);

    if (!program.allowed && !allowedForRun.has(program.path)) {
      const reason = `${name} 不在允许的命令里（--allow-command）`;
      switch (options.approval) {
        case "auto":
          return toolError("not_allowed", reason);
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
          break;
        }
        default: {
          const unreachable: never = options.approval;
          throw new TypeError(`unhandled approval mode ${String(unreachable)}`);
        }
      }
    }

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
  };
}
