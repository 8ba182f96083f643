import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgsOrExplain } from "@coding-agent/cli/parse-args";
import { listLabs } from "../labs.ts";
import { type CliOutput, EXIT_CODES } from "../tool-output.ts";
import {
  type LessonIdentity,
  labTest,
  lessonJson,
  packageJson,
  readme,
  sourceIndex,
  tsconfigJson,
} from "./lesson-templates.ts";

/** The scaffolded lab, or why nothing was written. */
export type ScaffoldResult =
  | {
      readonly ok: true;
      readonly id: string;
      readonly dir: string;
      readonly files: readonly string[];
    }
  | { readonly ok: false; readonly problem: string };

const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const LESSONS_PER_WEEK = 5;

/**
 * Writes `labs/NN-slug/` with a README outline, a valid manifest, shared tests, and a
 * starter and solution that differ in one exercise region. Refuses to touch an existing lab.
 */
export async function scaffoldLesson(
  repoRoot: string,
  request: { readonly number: string; readonly slug: string; readonly title: string },
): Promise<ScaffoldResult> {
  const number = Number(request.number);
  if (!/^\d{1,2}$/.test(request.number) || number < 1) {
    return { ok: false, problem: `课号应是 1 到 99 的数字，而不是 "${request.number}"` };
  }
  if (!SLUG.test(request.slug)) {
    return {
      ok: false,
      problem: `slug 应是小写 kebab-case（如 tool-registry），而不是 "${request.slug}"`,
    };
  }
  if (request.title.trim() === "") return { ok: false, problem: "请给出课程标题" };
  const id = String(number).padStart(2, "0");
  const existing = (await listLabs(repoRoot)).find((lab) => lab.id === id);
  if (existing !== undefined) {
    return { ok: false, problem: `第 ${id} 课已经存在：labs/${id}-${existing.slug}，不会覆盖` };
  }
  const folder = `${id}-${request.slug}`;
  const dir = path.join(repoRoot, "labs", folder);
  const lesson: LessonIdentity = {
    id,
    slug: request.slug,
    title: request.title.trim(),
    week: Math.min(8, Math.ceil(number / LESSONS_PER_WEEK)),
  };
  const files = new Map<string, string>([
    ["README.md", readme(lesson, folder)],
    ["lesson.json", lessonJson(lesson)],
    ["tests/lab.test.ts", labTest()],
  ]);
  for (const side of ["starter", "solution"] as const) {
    files.set(`${side}/package.json`, packageJson(id, side));
    files.set(`${side}/tsconfig.json`, tsconfigJson());
    files.set(`${side}/src/index.ts`, sourceIndex(id, side));
  }
  for (const [file, content] of files) {
    const target = path.join(dir, file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content, { flag: "wx" });
  }
  return { ok: true, id, dir, files: [...files.keys()] };
}

/** `new:lesson NN slug 标题…`; returns the exit code (0 written, 2 bad usage or existing lab). */
export async function runNewLessonCli(
  repoRoot: string,
  args: readonly string[],
  output: CliOutput,
): Promise<number> {
  const usage = "用法：pnpm new:lesson <课号> <slug> <标题>";
  const parsed = parseArgsOrExplain({
    args: args.filter((arg) => arg !== "--"),
    options: {},
    allowPositionals: true,
    strict: true,
  });
  if (!parsed.ok) {
    output.err(`${parsed.message}。\n${usage}\n`);
    return EXIT_CODES.usage;
  }
  const [number = "", slug = "", ...titleWords] = parsed.parsed.positionals;
  const result = await scaffoldLesson(repoRoot, { number, slug, title: titleWords.join(" ") });
  if (!result.ok) {
    output.err(`${result.problem}\n${usage}\n`);
    return EXIT_CODES.usage;
  }
  const relative = path.relative(repoRoot, result.dir);
  output.out(
    [
      `已创建 ${relative}/（${result.files.length} 个文件）：README 大纲、lesson.json、tests、starter、solution。`,
      "下一步：",
      "  1. pnpm install            # 把新的 starter 与 solution 加入工作区",
      `  2. pnpm verify:lesson ${result.id}   # 示例练习应当可靠；总项目测试要等你写好后才会通过`,
      "  3. 把示例练习、测试、清单和 README 换成本课的内容",
      "",
    ].join("\n"),
  );
  return EXIT_CODES.ok;
}
