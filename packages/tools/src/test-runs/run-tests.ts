import { readFile } from "node:fs/promises";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { type ToolErrorResult, toolError } from "@coding-agent/agent-core";
import { z } from "zod";
import {
  ARTIFACT_NOTE_ROOM,
  type KeepOutput,
  type ObservationBudget,
  observationBudget,
  readArtifactNote,
} from "../observation-budget.ts";
import { bwrapCommand } from "../sandbox/bwrap.ts";
import { type ProcessResult, runProcess } from "../sandbox/exec.ts";
import type { SandboxPolicy } from "../sandbox/policy.ts";
import { OWN_PROCESS_GROUP } from "../sandbox/process-group.ts";
import type { SandboxChoice } from "../sandbox/sandbox-mode.ts";
import { fitTestsResult } from "./fit-tests-result.ts";
import { parseGoTestJson } from "./go-test-report.ts";
import { parseLibtestSummary } from "./libtest-report.ts";
import { parseMochaSummary } from "./mocha-report.ts";
import {
  type TestCommandPlan,
  type TestReportKind,
  withMachineReporter,
} from "./plan-test-command.ts";
import { parsePytestSummary } from "./pytest-report.ts";
import { parseTap } from "./tap-report.ts";
import {
  parseJestLikeJson,
  parseNodeTap,
  type RunTestsResult,
  type TestCounts,
} from "./test-report.ts";
import { parseUnittestSummary } from "./unittest-report.ts";

/** `run_tests` takes no input (docs/contracts.md §6); `timeoutMs` may shorten or lengthen one run. */
export const RunTestsInputSchema = z.strictObject({
  timeoutMs: z.int().min(1).optional(),
});
export type RunTestsInput = z.output<typeof RunTestsInputSchema>;

export type { RunTestsResult } from "./test-report.ts";

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
  /** The run's observation budget: failures, messages and the output's end are fitted to it. */
  readonly budget?: ObservationBudget;
  /** Keeps an output cut to the budget whole (see `KeepOutput`). */
  readonly keepOutput?: KeepOutput;
}

/**
 * The workspace's `package.json` `test` script, read once when the run starts: an
 * edit to `package.json` during the run cannot change what `run_tests` runs.
 */
export async function readPackageTestScript(workspaceRoot: string): Promise<string | undefined> {
  return (await readPackageScripts(workspaceRoot)).test;
}

/** The `scripts` of the workspace's `package.json`; none when it is missing or unreadable. */
export async function readPackageScripts(
  workspaceRoot: string,
): Promise<Readonly<Record<string, string>>> {
  const text = await readFile(path.join(workspaceRoot, "package.json"), "utf8").catch(
    () => undefined,
  );
  if (text === undefined) return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return {};
  }
  const parsed = z
    .object({ scripts: z.record(z.string(), z.unknown()).optional() })
    .safeParse(json);
  if (!parsed.success) return {};
  const scripts: Record<string, string> = {};
  for (const [name, body] of Object.entries(parsed.data.scripts ?? {}))
    if (typeof body === "string" && body.trim() !== "") scripts[name] = body;
  return scripts;
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
    // Read at each call, as the package manager reads it when it runs the script.
    const planned = withMachineReporter(
      options.testCommand,
      await readPackageScripts(options.policy.cwd),
    );
    const timeoutMs = Math.min(
      input.timeoutMs ?? options.defaultTimeoutMs ?? 300_000,
      options.maxTimeoutMs ?? 1_800_000,
    );
    const command: [string, ...string[]] = [shell.path, "-c", planned.command];
    const cwd = options.policy.cwd;
    const { argv, group } =
      options.sandbox.kind === "bwrap"
        ? bwrapCommand({
            bwrap: options.sandbox.bwrap,
            workspace: cwd,
            argv: command,
            ...(options.policy.readOnly === undefined ? {} : { readOnly: options.policy.readOnly }),
          })
        : { argv: command, group: OWN_PROCESS_GROUP };
    const result = await runProcess(
      {
        argv: argv as [string, ...string[]],
        cwd,
        env: testRunEnv(options.policy.env, cwd),
        timeoutMs,
        maxOutputBytes: options.maxOutputBytes ?? 4_000_000,
        ...(signal === undefined ? {} : { signal }),
      },
      group,
    );
    if (result.timedOut)
      return toolError(
        "timeout",
        `测试命令 ${JSON.stringify(planned.command)} 在 ${timeoutMs} ms 内没有结束，整个进程组已被终止。` +
          `输出末尾：${tail(`${result.stdout}\n${result.stderr}`, 1_000)}`,
      );
    const read = readTestReport(planned, result, options.readNodeTap);
    const budget = options.budget ?? observationBudget();
    const whole = wholeResult(planned, result, read);
    const fitted = fitTestsResult(whole, budget);
    const output = stripVTControlCharacters(`${result.stdout}\n${result.stderr}`);
    // Without counts the model sees the output's end: more than that end is cut too.
    const cut = fitted !== whole || (read === undefined && output.trim().length > 4_000);
    if (!cut || options.keepOutput === undefined) return fitted;
    // Cut to the budget: the whole output is kept (redacted) and the result names it.
    const id = await options.keepOutput(budget.redact?.(output) ?? output, "run_tests");
    if (id === undefined) return fitted;
    const named = fitTestsResult(whole, {
      ...budget,
      maxChars: budget.maxChars - ARTIFACT_NOTE_ROOM,
    });
    const reading = readArtifactNote(id, "完整的测试输出");
    return {
      ...named,
      artifact: id,
      note: named.note === undefined ? reading : `${named.note}；${reading}`,
    };
  };
}

/**
 * The environment of a test run: the policy's, with the package's own tools on PATH,
 * colours off and no Python bytecode written.
 */
function testRunEnv(
  env: Readonly<Record<string, string>>,
  cwd: string,
): Readonly<Record<string, string>> {
  return {
    ...env,
    // As `npm test` does: the package's own tools (vitest, jest) are found by name.
    PATH: [path.join(cwd, "node_modules", ".bin"), env.PATH ?? ""].join(path.delimiter),
    NO_COLOR: "1",
    // Python reuses bytecode while the source's mtime (whole seconds) and size match: an
    // edit within the same second that keeps the size (`a - b` → `a + b`) would be tested
    // as it was. A test run that writes no bytecode reads the sources every time.
    PYTHONDONTWRITEBYTECODE: "1",
  };
}

/**
 * The result of a run that ended in time, before it is fitted to the budget: the counts
 * of its report, or without one the exit code, why there are no counts, and the output's end.
 */
function wholeResult(
  planned: TestCommandPlan,
  result: ProcessResult,
  read: ReturnType<typeof readTestReport>,
): RunTestsResult {
  return read !== undefined
    ? {
        ...read.counts,
        exitCode: result.exitCode,
        report: read.report,
        command: planned.command,
      }
    : {
        passed: null,
        failed: null,
        skipped: null,
        failures: [],
        exitCode: result.exitCode,
        report: "exit_code",
        command: planned.command,
        note: unreadableNote(planned, result.exitCode),
        output: tail(stripVTControlCharacters(`${result.stdout}\n${result.stderr}`).trim(), 4_000),
      };
}

/**
 * The report `planned` expects, read from a run's output (ANSI colours removed first:
 * `FORCE_COLOR` or a config may turn them on). A command whose runner was not
 * recognised (a shell script, a Makefile) may still print one: each reader is tried.
 * Undefined when there is no complete report.
 */
export function readTestReport(
  planned: TestCommandPlan,
  raw: { readonly stdout: string; readonly stderr: string },
  readNodeTap: (output: string) => TestCounts | undefined = parseNodeTap,
): { readonly counts: TestCounts; readonly report: TestReportKind } | undefined {
  const output = {
    stdout: stripVTControlCharacters(raw.stdout),
    stderr: stripVTControlCharacters(raw.stderr),
  };
  const readers: Record<Exclude<TestReportKind, "exit_code">, () => TestCounts | undefined> = {
    node_tap: () => readNodeTap(output.stdout),
    jest_json: () => parseJestLikeJson(output.stdout),
    tap: () => parseTap(output.stdout),
    // Some setups send mocha's summary to stderr.
    mocha_summary: () => parseMochaSummary(output.stdout) ?? parseMochaSummary(output.stderr),
    pytest_summary: () => parsePytestSummary(output.stdout),
    // unittest writes to stderr; a wrapper may send it to stdout.
    unittest_summary: () =>
      parseUnittestSummary(output.stderr) ?? parseUnittestSummary(output.stdout),
    go_test_json: () => parseGoTestJson(output.stdout),
    libtest_summary: () => parseLibtestSummary(output.stdout),
  };
  const kinds: readonly Exclude<TestReportKind, "exit_code">[] =
    planned.report !== "exit_code"
      ? [planned.report]
      : planned.runner === undefined
        ? [
            "jest_json",
            "tap",
            "mocha_summary",
            "pytest_summary",
            "unittest_summary",
            "go_test_json",
            "libtest_summary",
          ]
        : [];
  for (const kind of kinds) {
    const counts = readers[kind]();
    if (counts !== undefined) return { counts, report: kind };
  }
  return undefined;
}

/**
 * Why there are no counts, naming the runner when it was recognised, and what the exit
 * status stands for: 0 of the whole command is "passed, counts unknown", which the finish
 * gate takes as evidence for the workspace as it is now.
 */
function unreadableNote(planned: TestCommandPlan, exitCode: number | null): string {
  const why =
    planned.runner === undefined
      ? `认不出这个测试命令的机器可读报告（支持 ${READABLE_RUNNERS}），只能看退出码`
      : planned.report === "exit_code"
        ? `认出了 ${planned.runner}，但读不出命令选的报告格式（去掉 reporter 参数或接在后面的格式化管道即可），只能看退出码`
        : `${planned.runner} 没有输出完整的机器可读报告（进程中途退出或输出被截断），只能看退出码`;
  return exitCode === 0
    ? `${why}：整个测试命令以 0 退出，算作通过（个数未知），完成验证门把它当作当前工作区版本的测试证据`
    : `${why}：测试命令${exitCode === null ? "被信号终止" : `以退出码 ${exitCode} 结束`}，算作没有通过`;
}

/** The runners a note names, as lesson 16's README and `coding-agent run --help` list them. */
export const READABLE_RUNNERS =
  "node --test、vitest、jest、mocha、tape、node-tap、ava 等 TAP 输出，pytest、python -m unittest、go test、cargo test，以及经 npm / pnpm / yarn 脚本运行的它们";

function tail(text: string, chars: number): string {
  return text.length <= chars ? text : `…${text.slice(-chars)}`;
}
