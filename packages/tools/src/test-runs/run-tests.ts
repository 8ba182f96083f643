import { readFile } from "node:fs/promises";
import path from "node:path";
import { type ToolErrorResult, toolError } from "@coding-agent/agent-core";
import { z } from "zod";
import { buildBwrapArgv } from "../sandbox/bwrap.ts";
import { runProcess } from "../sandbox/exec.ts";
import type { SandboxPolicy } from "../sandbox/policy.ts";
import type { SandboxChoice } from "../sandbox/sandbox-mode.ts";
import {
  parseJestLikeJson,
  parseNodeTap,
  type TestCounts,
  type TestFailure,
} from "./test-report.ts";

/** `run_tests` takes no input (design §6); `timeoutMs` may shorten or lengthen one run. */
export const RunTestsInputSchema = z.strictObject({
  timeoutMs: z.int().min(1).optional(),
});
export type RunTestsInput = z.output<typeof RunTestsInputSchema>;

/** Which report the counts came from; `exit_code`: the runner gave none, counts are unknown (null). */
export type TestReportKind = "node_tap" | "jest_json" | "exit_code";

/** What `run_tests` returns (design §6), with where the numbers came from. */
export interface RunTestsResult {
  readonly passed: number | null;
  readonly failed: number | null;
  readonly skipped: number | null;
  readonly failures: readonly TestFailure[];
  readonly exitCode: number | null;
  readonly report: TestReportKind;
  /** The command that ran (with the reporter flag added, if one was). */
  readonly command: string;
  /** Why there are no counts, in Chinese, when `report` is `exit_code`. */
  readonly note?: string;
  /** The end of the output when there are no counts, so the model still sees what happened. */
  readonly output?: string;
}

/** How `run_tests` runs in one run. */
export interface RunTestsOptions {
  readonly policy: SandboxPolicy;
  readonly sandbox: Exclude<SandboxChoice, { kind: "unavailable" }>;
  /** `--test-command`, or the workspace's `package.json` `test` script; none: `run_tests` says how to give one. */
  readonly testCommand?: string;
  /** Default and ceiling of one run. Defaults 5 min and 30 min. */
  readonly defaultTimeoutMs?: number;
  readonly maxTimeoutMs?: number;
  /** Bytes kept of each of stdout and stderr; a report cut in the middle cannot be read. Default 4 MB. */
  readonly maxOutputBytes?: number;
  /** Reads `node --test` TAP into counts; undefined: no complete report. Default `parseNodeTap`. */
  readonly readNodeTap?: (output: string) => TestCounts | undefined;
}

/**
 * The workspace's `package.json` `test` script, read once when the run starts: an
 * edit to `package.json` during the run cannot change what `run_tests` runs.
 */
export async function readPackageTestScript(workspaceRoot: string): Promise<string | undefined> {
  const text = await readFile(path.join(workspaceRoot, "package.json"), "utf8").catch(
    () => undefined,
  );
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = z
    .object({ scripts: z.object({ test: z.string().min(1).optional() }).optional() })
    .safeParse(json);
  return parsed.success ? parsed.data.scripts?.test : undefined;
}

/**
 * The command with a machine-readable reporter asked for, when the runner is one we
 * can read and the command did not choose a reporter itself: `node --test` gets
 * `--test-reporter=tap`, `vitest` `--reporter=json`, `jest` `--json`.
 */
export function withMachineReporter(command: string): {
  readonly command: string;
  readonly report: TestReportKind;
} {
  const token = (word: string) => new RegExp(`(?<=^|[\\s;&|(/])${word}(?=$|[\\s;&|)])`);
  if (/\bnode\b/.test(command) && token("--test").test(command)) {
    if (/--test-reporter=tap\b/.test(command)) return { command, report: "node_tap" };
    if (command.includes("--test-reporter")) return { command, report: "exit_code" };
    return {
      command: command.replace(token("--test"), "--test --test-reporter=tap"),
      report: "node_tap",
    };
  }
  const vitest = token("vitest(?:\\s+run)?");
  if (vitest.test(command)) {
    if (/--reporter[= ]json\b/.test(command)) return { command, report: "jest_json" };
    if (command.includes("--reporter")) return { command, report: "exit_code" };
    return {
      command: command.replace(vitest, (found) => `${found} --reporter=json`),
      report: "jest_json",
    };
  }
  if (token("jest").test(command)) {
    if (token("--json").test(command)) return { command, report: "jest_json" };
    return { command: command.replace(token("jest"), "jest --json"), report: "jest_json" };
  }
  return { command, report: "exit_code" };
}

/**
 * A `run_tests` executor for one run: runs the test command with `sh -c` in the
 * workspace through the same process runner as `run_command` (own process group,
 * timeout, output caps, the policy's environment, bwrap when chosen). It needs no
 * `--allow-command`: the user named the command. A run that does not end in time is
 * a `timeout` error, its whole process group killed.
 */
export function createRunTests(
  options: RunTestsOptions,
): (input: RunTestsInput, signal?: AbortSignal) => Promise<RunTestsResult | ToolErrorResult> {
  return async (input, signal) => {
    if (options.testCommand === undefined || options.testCommand.trim() === "")
      return toolError(
        "no_test_command",
        "没有测试命令：请用 --test-command 指定，或在工作区 package.json 的 scripts.test 中写明",
      );
    const shell = await options.policy.resolveProgram("sh");
    if (!shell.ok) return toolError("not_allowed", shell.reason);
    const planned = withMachineReporter(options.testCommand);
    const timeoutMs = Math.min(
      input.timeoutMs ?? options.defaultTimeoutMs ?? 300_000,
      options.maxTimeoutMs ?? 1_800_000,
    );
    const command: [string, ...string[]] = [shell.path, "-c", planned.command];
    const cwd = options.policy.cwd;
    const argv =
      options.sandbox.kind === "bwrap"
        ? buildBwrapArgv({ bwrap: options.sandbox.bwrap, workspace: cwd, argv: command })
        : command;
    const result = await runProcess({
      argv: argv as [string, ...string[]],
      cwd,
      env: {
        ...options.policy.env,
        // As `npm test` does: the package's own tools (vitest, jest) are found by name.
        PATH: [path.join(cwd, "node_modules", ".bin"), options.policy.env.PATH ?? ""].join(
          path.delimiter,
        ),
        NO_COLOR: "1",
      },
      timeoutMs,
      maxOutputBytes: options.maxOutputBytes ?? 4_000_000,
      ...(signal === undefined ? {} : { signal }),
    });
    if (result.timedOut)
      return toolError(
        "timeout",
        `测试命令 ${JSON.stringify(planned.command)} 在 ${timeoutMs} ms 内没有结束，整个进程组已被终止。` +
          `输出末尾：${tail(`${result.stdout}\n${result.stderr}`, 1_000)}`,
      );
    const counts =
      planned.report === "node_tap"
        ? (options.readNodeTap ?? parseNodeTap)(result.stdout)
        : planned.report === "jest_json"
          ? parseJestLikeJson(result.stdout)
          : undefined;
    if (counts !== undefined)
      return {
        ...counts,
        exitCode: result.exitCode,
        report: planned.report,
        command: planned.command,
      };
    return {
      passed: null,
      failed: null,
      skipped: null,
      failures: [],
      exitCode: result.exitCode,
      report: "exit_code",
      command: planned.command,
      note:
        planned.report === "exit_code"
          ? "认不出这个测试命令的机器可读报告（支持 node --test、vitest、jest），只能看退出码"
          : "测试命令没有输出完整的机器可读报告，只能看退出码",
      output: tail(`${result.stdout}\n${result.stderr}`.trim(), 4_000),
    };
  };
}

function tail(text: string, chars: number): string {
  return text.length <= chars ? text : `…${text.slice(-chars)}`;
}
