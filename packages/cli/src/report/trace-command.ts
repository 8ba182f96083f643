import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { CliIo } from "../cli-io.ts";
import { EXIT_CODES } from "../exit-codes.ts";
import type { CliEnv } from "../model-provider.ts";
import { codingAgentHome, RUN_ID_PATTERN, runDirOf } from "../run-files.ts";
import { renderHtmlReport } from "./html-report.ts";
import type { TraceReport } from "./report-model.ts";
import { readRunAtif } from "./run-atif.ts";
import { formatTerminalReport } from "./terminal-report.ts";
import type { TraceCommand } from "./trace-args.ts";
import { parseTraceLines } from "./trace-lines.ts";
import { buildTraceReport, withChildReports } from "./trace-report.ts";

/** The file name of a run's trace inside its folder (docs/contracts.md §7). */
export const TRACE_FILE = "trace.jsonl";

/**
 * `coding-agent trace`: reads one run's trace and prints its report (terminal text, or the
 * data with `--json`), and writes the HTML page with `--html`. Exit 0 once the report is
 * made, whatever the run's own status (the report is the result, as for `coding-agent
 * runs`); 2 when there is no trace to read (naming where it looked) or a line in it is
 * broken; 1 when the page cannot be written.
 */
export async function runTraceCommand(
  command: TraceCommand,
  io: CliIo,
  env: CliEnv,
): Promise<number> {
  const located = await locateTrace(command.target, codingAgentHome(env));
  if (!located.ok) {
    io.stderr(`${located.message}\n`);
    return EXIT_CODES.usage;
  }
  let text: string;
  try {
    text = await readFile(located.file, "utf8");
  } catch (error) {
    io.stderr(`读不到 trace 文件 ${located.file}（${errorCode(error)}）\n`);
    return EXIT_CODES.usage;
  }
  const read = parseTraceLines(text, located.file);
  if (!read.ok) {
    io.stderr(`${read.message}\n`);
    return EXIT_CODES.usage;
  }
  const report = withChildReports(
    buildTraceReport(read.events, read.warnings),
    await childReports(path.dirname(located.file)),
  );
  if (command.html !== undefined) {
    const target = path.resolve(command.html);
    try {
      await writeFile(target, renderHtmlReport(report), { encoding: "utf8", mode: 0o600 });
    } catch (error) {
      io.stderr(`写不了 HTML 报告 ${target}（${errorCode(error)}）\n`);
      return EXIT_CODES.failed;
    }
  }
  if (command.atif !== undefined) {
    const written = await writeAtif(path.dirname(located.file), path.resolve(command.atif));
    if (!written.ok) {
      io.stderr(`${written.message}\n`);
      return written.code;
    }
  }
  if (command.json) {
    // The terminal text shows the warnings itself; JSON readers get them on stderr too.
    for (const warning of report.warnings) io.stderr(`警告：${warning}\n`);
    io.stdout(`${JSON.stringify(report)}\n`);
  } else {
    io.stdout(formatTerminalReport(report, { color: io.color === true }));
  }
  if (command.html !== undefined) io.stderr(`HTML 报告已写入 ${path.resolve(command.html)}\n`);
  if (command.atif !== undefined) io.stderr(`ATIF 轨迹已写入 ${path.resolve(command.atif)}\n`);
  return EXIT_CODES.ok;
}

/**
 * Writes the run of `runDir` as an ATIF trajectory, checked against the format's schema
 * before it is written: exit 2 when the log cannot be read, 1 when the file cannot be written.
 */
async function writeAtif(
  runDir: string,
  target: string,
): Promise<
  { readonly ok: true } | { readonly ok: false; readonly code: number; readonly message: string }
> {
  const read = await readRunAtif(runDir);
  if (!read.ok)
    return { ok: false, code: EXIT_CODES.usage, message: `写不了 ATIF：${read.message}` };
  try {
    await writeFile(target, `${JSON.stringify(read.trajectory, null, 2)}\n`, {
      encoding: "utf8",
      mode: 0o600,
    });
  } catch (error) {
    return {
      ok: false,
      code: EXIT_CODES.failed,
      message: `写不了 ATIF 文件 ${target}（${errorCode(error)}）`,
    };
  }
  return { ok: true };
}

/**
 * The reports of a run's children (lesson 39): each `subagents/<n>/trace.jsonl` beside the
 * parent's trace, in child order. A child trace that cannot be read is left out with a
 * warning naming it: the parent's report is still made.
 */
async function childReports(runDir: string): Promise<TraceReport[]> {
  const dir = path.join(runDir, "subagents");
  const names = (await readdir(dir).catch(() => [] as string[]))
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(a) - Number(b));
  const reports: TraceReport[] = [];
  for (const name of names) {
    const file = path.join(dir, name, TRACE_FILE);
    const text = await readFile(file, "utf8").catch((error: unknown) => error as Error);
    // No trace at all: the child stopped before its loop started (it spent nothing).
    if (typeof text !== "string" && errorCode(text) === "ENOENT") continue;
    const read =
      typeof text === "string"
        ? parseTraceLines(text, file)
        : { ok: false as const, message: `读不到 ${file}（${errorCode(text)}）` };
    if (read.ok) reports.push(buildTraceReport(read.events, read.warnings));
    else reports.push(unreadChild(`子 Agent #${name} 的 trace 没有计入：${read.message}`));
  }
  return reports;
}

/** A child whose trace could not be read: nothing of it counted, a warning saying so. */
function unreadChild(warning: string): TraceReport {
  return {
    runId: "",
    status: "unfinished",
    totals: {
      steps: 0,
      toolCalls: 0,
      toolErrors: 0,
      inputTokens: 0,
      outputTokens: 0,
      // Its cost is not known: the run's total is not either.
      costUsd: null,
      durationMs: 0,
      rejections: 0,
      retries: 0,
      compactions: 0,
    },
    timeline: [],
    warnings: [warning],
  };
}

/**
 * Where the trace of `target` is: a run id names `$CODING_AGENT_HOME/runs/<id>/trace.jsonl`;
 * anything else is a path, to the file or to a run's folder.
 */
export async function locateTrace(
  target: string,
  home: string,
): Promise<
  { readonly ok: true; readonly file: string } | { readonly ok: false; readonly message: string }
> {
  if (RUN_ID_PATTERN.test(target)) {
    const dir = runDirOf(home, target);
    const file = path.join(dir, TRACE_FILE);
    if ((await kindOf(file)) === "file") return { ok: true, file };
    if ((await kindOf(dir)) !== "directory") {
      return {
        ok: false,
        message: `找不到运行 ${target}：${dir} 不存在（运行 ID 见 coding-agent runs；也可以直接给 trace.jsonl 的路径）`,
      };
    }
    return { ok: false, message: `运行 ${target} 没有 trace：${file} 不存在` };
  }
  const given = path.resolve(target);
  const kind = await kindOf(given);
  if (kind === "file") return { ok: true, file: given };
  if (kind === "directory") {
    const file = path.join(given, TRACE_FILE);
    if ((await kindOf(file)) === "file") return { ok: true, file };
    return { ok: false, message: `${given} 里没有 ${TRACE_FILE}` };
  }
  return { ok: false, message: `找不到 trace 文件：${given} 不存在` };
}

async function kindOf(file: string): Promise<"file" | "directory" | "other" | undefined> {
  try {
    const info = await stat(file);
    return info.isFile() ? "file" : info.isDirectory() ? "directory" : "other";
  } catch {
    return undefined;
  }
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}
