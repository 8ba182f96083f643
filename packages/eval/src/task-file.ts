import { readdir, readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { formatValueIssues, type RunStatus, toValueIssues } from "@coding-agent/agent-core";
import { type ScriptedTurn, ScriptSchema } from "@coding-agent/agent-core/testing";
import { z } from "zod";
import { type FixtureFile, readFixture } from "./fixture.ts";

/** Statuses a task may expect (`expect.status`); a run ends in one of them. */
export const RUN_STATUSES = [
  "completed",
  "failed",
  "budget_exceeded",
  "cancelled",
  "blocked",
] as const satisfies readonly RunStatus[];

/** Flags the harness sets itself for every run; a task's `args` may not name them. */
export const RESERVED_RUN_FLAGS = [
  "workspace",
  "json",
  "script",
  "test-command",
  "run-id",
  "help",
] as const;

/** One `<suite>/<id>/task.json` (docs/contracts.md §7, Eval), as written in the file. */
export const TaskFileSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "只能由字母、数字、.、_、- 组成，并以字母或数字开头"),
  goal: z.string().trim().min(1, "不能为空"),
  repo: z
    .string()
    .min(1, "需要夹具目录（相对任务目录）")
    .refine((value) => !path.isAbsolute(value), "要写相对任务目录的路径"),
  testCommand: z.string().trim().min(1, "不能为空"),
  allowPaths: z.array(z.string().min(1, "glob 不能为空")).optional(),
  forbiddenPaths: z.array(z.string().min(1, "glob 不能为空")).optional(),
  /** Fake-model turns, inline, or the name of a JSON file beside task.json. */
  script: z.union([z.string().min(1, "需要脚本文件名"), z.array(z.unknown())]).optional(),
  args: z.array(z.string()).optional(),
  expect: z.strictObject({ status: z.enum(RUN_STATUSES) }).optional(),
  timeoutMs: z.int().positive("必须大于 0").optional(),
});

/**
 * A task ready to run anywhere: its fixture's files are in it, so a queue worker on another
 * machine needs nothing but this value (it is what a BullMQ job carries).
 */
export interface EvalTask {
  readonly id: string;
  readonly goal: string;
  readonly testCommand: string;
  readonly allowPaths: readonly string[];
  readonly forbiddenPaths: readonly string[];
  readonly script?: readonly ScriptedTurn[];
  readonly args: readonly string[];
  /** `expect.status`, `completed` when the task does not say. */
  readonly expectStatus: RunStatus;
  readonly timeoutMs?: number;
  readonly files: readonly FixtureFile[];
}

/** A loaded suite: its name (the folder's) and its tasks, sorted by id. */
export interface EvalSuite {
  readonly name: string;
  readonly dir: string;
  readonly tasks: readonly EvalTask[];
}

/** Says why a task's `args` are not valid `coding-agent run` options (Chinese), or undefined. */
export type RunArgsValidator = (args: readonly string[]) => string | undefined;

/** Names the first of a task's `args` that the harness sets itself, or undefined. */
export type ReservedFlagCheck = (args: readonly string[]) => string | undefined;

/**
 * The first of `args` that is a flag of `RESERVED_RUN_FLAGS`, alone (`--json`) or with its
 * value after `=` (`--workspace=/tmp/x`); a value that merely reads like one (`--model json`)
 * is not a flag.
 */
export const reservedFlagIn: ReservedFlagCheck = (args) =>
  args.find((arg) =>
    RESERVED_RUN_FLAGS.some((flag) => arg === `--${flag}` || arg.startsWith(`--${flag}=`)),
  );

/** A suite, or a Chinese message naming the file and the field (exit 2). */
export type SuiteLoadResult =
  | { readonly ok: true; readonly suite: EvalSuite }
  | { readonly ok: false; readonly message: string };

/**
 * Reads every `<suite>/<id>/task.json`, validates it with zod, the fake-model script with the
 * CLI's own schema and `args` with `validateRunArgs` (after `findReservedFlag`, which refuses
 * the flags the harness sets), and reads the fixture's files.
 */
export async function loadSuite(
  suiteDir: string,
  validateRunArgs: RunArgsValidator,
  findReservedFlag: ReservedFlagCheck = reservedFlagIn,
): Promise<SuiteLoadResult> {
  const dir = path.resolve(suiteDir);
  let entries: string[];
  try {
    entries = (await readdir(dir, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    return { ok: false, message: `无法读取任务集目录 ${dir}：${errorCode(error)}` };
  }
  const tasks: EvalTask[] = [];
  for (const name of entries) {
    const file = path.join(dir, name, "task.json");
    const exists = await stat(file).then(
      (info) => info.isFile(),
      () => false,
    );
    if (!exists) continue;
    const task = await loadTask(file, name, validateRunArgs, findReservedFlag);
    if (!task.ok) return task;
    tasks.push(task.task);
  }
  if (tasks.length === 0)
    return { ok: false, message: `任务集 ${dir} 里没有任务（需要 <任务集>/<id>/task.json）` };
  return { ok: true, suite: { name: path.basename(dir), dir, tasks } };
}

async function loadTask(
  file: string,
  folder: string,
  validateRunArgs: RunArgsValidator,
  findReservedFlag: ReservedFlagCheck,
): Promise<{ ok: true; task: EvalTask } | { ok: false; message: string }> {
  const bad = (field: string, message: string) => ({
    ok: false as const,
    message: `任务文件 ${file} 无效：${field}: ${message}`,
  });
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    return {
      ok: false,
      message: `任务文件 ${file} 不是合法 JSON：${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const parsed = TaskFileSchema.safeParse(json, { error: z.locales.zhCN().localeError });
  if (!parsed.success) {
    return {
      ok: false,
      message: `任务文件 ${file} 无效：${formatValueIssues(toValueIssues(parsed.error.issues, "(根)"), "；")}`,
    };
  }
  const spec = parsed.data;
  if (spec.id !== folder) return bad("id", `必须和任务目录名一致（${folder}），实际是 ${spec.id}`);
  const taskDir = path.dirname(file);

  const script = await loadScript(spec.script, taskDir);
  if (!script.ok) return bad("script", script.message);

  const args = spec.args ?? [];
  const reserved = findReservedFlag(args);
  if (reserved !== undefined) return bad("args", `${reserved} 由评测框架设置，任务不能给`);
  const argsProblem = validateRunArgs(args);
  if (argsProblem !== undefined) return bad("args", argsProblem);

  const repoDir = path.resolve(taskDir, spec.repo);
  const isDir = await stat(repoDir).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (!isDir) return bad("repo", `夹具目录不存在：${repoDir}`);
  // The fixture is copied into every task's workspace and shown to the model: a task may only
  // name a folder of its own, not `../..` or a link out of it (a suite can come from anyone).
  if (!isInside(await realpath(taskDir), await realpath(repoDir))) {
    return bad("repo", `夹具目录必须在任务目录里：${spec.repo}`);
  }
  const files = await readFixture(repoDir);

  return {
    ok: true,
    task: {
      id: spec.id,
      goal: spec.goal,
      testCommand: spec.testCommand,
      allowPaths: spec.allowPaths ?? [],
      forbiddenPaths: spec.forbiddenPaths ?? [],
      ...(script.turns === undefined ? {} : { script: script.turns }),
      args,
      expectStatus: spec.expect?.status ?? "completed",
      ...(spec.timeoutMs === undefined ? {} : { timeoutMs: spec.timeoutMs }),
      files,
    },
  };
}

/** True when `child` is `parent` or inside it (both real paths). */
function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

async function loadScript(
  script: string | readonly unknown[] | undefined,
  taskDir: string,
): Promise<
  { ok: true; turns?: readonly ScriptedTurn[] } | { readonly ok: false; readonly message: string }
> {
  if (script === undefined) return { ok: true };
  let turns: unknown = script;
  if (typeof script === "string") {
    const scriptFile = path.resolve(taskDir, script);
    if (path.relative(taskDir, scriptFile).startsWith("..") || path.isAbsolute(script))
      return { ok: false, message: `脚本文件必须在任务目录里：${script}` };
    try {
      turns = JSON.parse(await readFile(scriptFile, "utf8"));
    } catch (error) {
      return { ok: false, message: `无法读取脚本文件 ${scriptFile}：${errorCode(error)}` };
    }
  }
  const parsed = ScriptSchema.safeParse(turns, { error: z.locales.zhCN().localeError });
  if (!parsed.success)
    return {
      ok: false,
      message: formatValueIssues(toValueIssues(parsed.error.issues, "(根)"), "；"),
    };
  return { ok: true, turns: parsed.data };
}

function errorCode(error: unknown): string {
  if (error instanceof SyntaxError) return error.message;
  return (error as NodeJS.ErrnoException).code ?? String(error);
}
