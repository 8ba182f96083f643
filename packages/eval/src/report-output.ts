import { writeFile } from "node:fs/promises";
import { type BaselineTask, loadBaseline } from "./baseline.ts";
import type { ReportOptions } from "./eval-args.ts";
import { renderHtmlReport } from "./html-report.ts";
import { renderJunit } from "./junit.ts";
import { buildReport, describeDrop, formatTerminalReport, hasHarnessError } from "./report.ts";
import { HARNESS_ERROR_STATUS, type TaskResult } from "./run-task.ts";

/** Where `coding-agent eval` writes; the CLI passes its own streams. */
export interface EvalIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** The baseline a report is gated on: none, or its tasks; a message for a usage error (exit 2). */
export async function readGateBaseline(
  options: ReportOptions,
): Promise<
  | { readonly ok: true; readonly tasks?: readonly BaselineTask[] }
  | { readonly ok: false; readonly message: string }
> {
  if (options.baseline === undefined) return { ok: true };
  const baseline = await loadBaseline(options.baseline);
  if (baseline.kind === "invalid") return { ok: false, message: baseline.message };
  if (baseline.kind === "missing") {
    if (options.updateBaseline) return { ok: true };
    return {
      ok: false,
      message: `基线文件不存在：${options.baseline}（第一次请加 --update-baseline 生成它）`,
    };
  }
  // `--update-baseline` accepts this run: its results become the baseline, nothing regresses.
  return options.updateBaseline ? { ok: true } : { ok: true, tasks: baseline.tasks };
}

/**
 * Builds the report of a job's results and gives it as asked (stdout, JUnit, HTML, the
 * baseline file); returns the exit code: 1 on a regression or a harness error, else 0.
 */
export async function deliverReport(options: {
  readonly suite: string;
  readonly results: readonly TaskResult[];
  readonly trials: number;
  readonly baseline?: readonly BaselineTask[];
  readonly output: ReportOptions;
  readonly io: EvalIo;
}): Promise<0 | 1> {
  const { output, io } = options;
  const report = buildReport({
    suite: options.suite,
    results: options.results,
    trials: options.trials,
    ...(options.baseline === undefined ? {} : { baseline: options.baseline }),
  });
  const json = `${JSON.stringify(report, null, 2)}\n`;
  io.stdout(output.json ? json : formatTerminalReport(report));
  if (output.junit !== undefined) await writeFile(output.junit, renderJunit(report));
  if (output.html !== undefined) await writeFile(output.html, renderHtmlReport(report));
  if (output.updateBaseline && output.baseline !== undefined) {
    await writeFile(output.baseline, json);
    io.stderr(`基线已更新：${output.baseline}\n`);
  }
  if (report.regressions.length > 0) {
    io.stderr(
      report.passRateDrops === undefined
        ? `回归：${report.regressions.join(", ")}（基线中通过，这次失败）\n`
        : `回归：${report.passRateDrops.map(describeDrop).join(", ")}（通过率比基线低得超过容差）\n`,
    );
    return 1;
  }
  if (hasHarnessError(report)) {
    const broken = report.tasks
      .filter((task) => task.status === HARNESS_ERROR_STATUS)
      .map(
        (task) =>
          `${task.trial === undefined ? task.id : `${task.id} #${task.trial}`}（${task.code}）`,
      );
    io.stderr(`评测框架错误：${broken.join(", ")}\n`);
    return 1;
  }
  return 0;
}
