import type { RunSummary } from "./run-files.ts";

/** The columns of `coding-agent runs`, in order; the goal comes last and is never padded. */
const HEADERS = ["运行 ID", "开始时间", "状态", "目标"] as const;

/** CJK characters take two terminal columns (the headers are Chinese, goals often are). */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uf900-\ufaff\uff00-\uff60\uffe0-\uffe6]/u;

function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) width += WIDE.test(char) ? 2 : 1;
  return width;
}

/**
 * The text `coding-agent runs` prints: a header line, then one line a run (id, start time,
 * status, goal), each column as wide as its widest cell, so the columns line up on a terminal.
 */
export function formatRunsTable(runs: readonly RunSummary[]): string {
  const rows = [
    [...HEADERS],
    ...runs.map((run) => [run.runId, run.startedAt, run.status, run.goal]),
  ];
  const widths = HEADERS.map((_, column) =>
    Math.max(...rows.map((row) => displayWidth(row[column] ?? ""))),
  );
  const lines = rows.map((row) =>
    row
      .map((cell, column) =>
        column === HEADERS.length - 1
          ? cell
          : cell + " ".repeat((widths[column] ?? 0) - displayWidth(cell)),
      )
      .join("  ")
      .trimEnd(),
  );
  return `${lines.join("\n")}\n`;
}
