import type { LabInspection, ResolvedLab } from "./lab-lookup.ts";
import type { LessonProgress } from "./progress.ts";
import { describeIntegrity, type TestsIntegrity } from "./tampering.ts";
import { type Colors, displayWidth, firstLine, padToWidth } from "./terminal.ts";

/** One line of `pnpm lessons`: a usable lab with the learner's progress, or a broken one. */
export type LessonRow =
  | {
      readonly kind: "lesson";
      readonly lab: ResolvedLab;
      readonly progress: LessonProgress;
      readonly integrity: TestsIntegrity;
    }
  /** A lab folder that cannot be run: as the lookup found it. */
  | Exclude<LabInspection, { readonly kind: "ready" }>;

/**
 * The first lesson, in order, that the learner has not finished: complete, and proven by
 * the committed tests rather than edited ones.
 */
function nextLesson(rows: readonly LessonRow[]): ResolvedLab | undefined {
  for (const row of rows) {
    if (row.kind === "not_a_lab") continue;
    const done =
      row.kind === "lesson" &&
      row.progress.kind === "complete" &&
      row.integrity.state !== "changed";
    if (!done) return row.lab;
  }
  return undefined;
}

function progressText(progress: LessonProgress, colors: Colors): string {
  switch (progress.kind) {
    case "not_started":
      return colors.dim("未开始");
    case "in_progress":
      return colors.yellow(`${progress.passed}/${progress.total} 个测试通过`);
    case "complete":
      return colors.green(`已完成（${progress.total}/${progress.total}）`);
    case "load_error":
      return colors.red(`测试无法加载：${firstLine(progress.message)}`);
    case "no_tests":
      return colors.red("没有找到测试");
    default: {
      const unreachable: never = progress;
      return unreachable;
    }
  }
}

/** The state column of a row, in Chinese. */
function describeState(row: LessonRow, colors: Colors): string {
  if (row.kind === "not_installed") return colors.yellow("依赖未安装（运行 pnpm install）");
  if (row.kind === "not_a_lab") return colors.red(`不是完整的实验（${row.file}）`);
  const tampered = row.integrity.state === "changed" ? colors.red("（测试已被改动！）") : "";
  return progressText(row.progress, colors) + tampered;
}

/** The progress table for a terminal: by week, then the next lesson, then every notice. */
export function renderLessonsText(rows: readonly LessonRow[], colors: Colors): string {
  const lines: string[] = [colors.bold("课程进度"), ""];
  const usable = rows.filter((row) => row.kind !== "not_a_lab");
  const titleWidth = Math.max(0, ...usable.map((row) => displayWidth(row.lab.manifest.title)));
  const weeks = [...new Set(usable.map((row) => row.lab.manifest.week))].sort((a, b) => a - b);
  for (const week of weeks) {
    lines.push(colors.bold(`第 ${week} 周`));
    for (const row of usable.filter((candidate) => candidate.lab.manifest.week === week)) {
      const title = padToWidth(row.lab.manifest.title, titleWidth);
      lines.push(`  ${row.lab.id}  ${title}  ${describeState(row, colors)}`);
    }
    lines.push("");
  }
  const broken = rows.filter((row) => row.kind === "not_a_lab");
  if (broken.length > 0) {
    lines.push(colors.bold("无法读取的课程"));
    for (const row of broken) {
      lines.push(`  ${row.location.id}  ${row.name}  ${describeState(row, colors)}`);
      for (const problem of row.problems) lines.push(`        ${problem}`);
    }
    lines.push("");
  }
  if (rows.length === 0) lines.push("labs/ 下还没有任何课程。", "");
  const next = nextLesson(rows);
  if (next !== undefined) {
    lines.push(
      `${colors.bold("下一课：")}${next.id} ${next.manifest.title}（${next.name}）`,
      `  阅读 ${next.name}/README.md，然后运行 pnpm lesson watch ${next.id}`,
    );
  } else if (usable.length > 0 && broken.length === 0) {
    lines.push(colors.green("所有课程都已完成。"));
  }
  for (const row of rows) {
    if (row.kind !== "lesson") continue;
    const notice = describeIntegrity(row.lab, row.integrity);
    if (notice !== undefined) lines.push("", colors.red(notice));
  }
  if (rows.some((row) => row.kind === "not_installed")) {
    lines.push("", colors.yellow("有课程的依赖还没有安装：请在仓库根目录运行 pnpm install。"));
  }
  return `${lines.join("\n")}\n`;
}

/** One lesson in the `--json` output. */
export interface LessonJson {
  readonly id: string;
  readonly slug: string;
  readonly dir: string;
  readonly title: string | null;
  readonly week: number | null;
  readonly state: LessonProgress["kind"] | "not_installed" | "not_a_lab";
  readonly passed: number | null;
  readonly total: number | null;
  readonly tests: TestsIntegrity["state"] | null;
  readonly problems: readonly string[];
}

function toJson(row: LessonRow): LessonJson {
  if (row.kind === "not_a_lab") {
    return {
      id: row.location.id,
      slug: row.location.slug,
      dir: row.name,
      title: null,
      week: null,
      state: "not_a_lab",
      passed: null,
      total: null,
      tests: null,
      problems: row.problems.map((problem) => `${row.file}: ${problem}`),
    };
  }
  const lab = {
    id: row.lab.id,
    slug: row.lab.slug,
    dir: row.lab.name,
    title: row.lab.manifest.title,
    week: row.lab.manifest.week,
  };
  if (row.kind === "not_installed") {
    const problems = [`缺少 ${row.missing}`];
    return { ...lab, state: "not_installed", passed: null, total: null, tests: null, problems };
  }
  const progress = row.progress;
  const counts =
    progress.kind === "not_started" || progress.kind === "in_progress"
      ? { passed: progress.passed, total: progress.total }
      : progress.kind === "complete"
        ? { passed: progress.total, total: progress.total }
        : { passed: null, total: null };
  return {
    ...lab,
    state: progress.kind,
    ...counts,
    tests: row.integrity.state,
    problems: progress.kind === "load_error" ? [`${progress.file}: ${progress.message}`] : [],
  };
}

/** The `--json` document: every lesson in order and the id of the next one (or null). */
export function renderLessonsJson(rows: readonly LessonRow[]): string {
  return `${JSON.stringify({ lessons: rows.map(toJson), next: nextLesson(rows)?.id ?? null }, null, 2)}\n`;
}
