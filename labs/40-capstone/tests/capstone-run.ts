/**
 * The capstone's real runs, shared by the lab's tests: the whole agent (`coding-agent run`
 * in this process) on a fresh copy of the fixture repository, the evidence it leaves
 * (`--json` result, state.jsonl, trace.jsonl, the real patch), `coding-agent trace`, and
 * `coding-agent eval` over the week-7 suite plus the capstone task, against a baseline.
 * Every run happens once per test file, when a test first asks for it.
 */
import { cp, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  type CapturedCliRun,
  readRunRecords,
  runCliCaptured,
  type StateEvent,
  type TraceLine,
} from "@coding-agent/cli";
import {
  diffSnapshots,
  type EvalReport,
  readFixture,
  snapshotFixture,
  snapshotWorkspace,
} from "@coding-agent/eval";
import type { CapstoneEvidence, PatchEntry, RunJson } from "@lab";
import { afterAll } from "vitest";

const EXAMPLES = join(
  dirname(createRequire(import.meta.url).resolve("@coding-agent/eval/package.json")),
  "examples",
);
/** The capstone task: a TypeScript library no earlier lesson used, with a failing test. */
export const TASK_ID = "fix-paginate";
export const TASK_DIR = join(EXAMPLES, "capstone", TASK_ID);
const WEEK_07_SUITE = join(EXAMPLES, "basic");
/** The allowPaths of the task's task.json. */
export const ALLOW_PATHS = ["src/**"];
/** The baseline the eval compares with: the suite's results on the course's last green run. */
const BASELINE = join(import.meta.dirname, "baseline.json");

let base: Promise<string> | undefined;
/** One temporary folder for this file's runs (with its own `$CODING_AGENT_HOME`), removed after. */
function baseDir(): Promise<string> {
  base ??= mkdtemp(join(tmpdir(), "lab-40-")).then((dir) => realpath(dir));
  return base;
}
afterAll(async () => {
  if (base !== undefined) await rm(await base, { recursive: true, force: true });
}, 30_000);

let counter = 0;
async function freshDir(name: string): Promise<string> {
  counter += 1;
  return join(await baseDir(), `${counter}-${name}`);
}

/** `coding-agent <argv>` in this process, with this file's home and only `PATH` of ours. */
async function cli(argv: readonly string[]): Promise<CapturedCliRun> {
  return runCliCaptured(argv, {
    CODING_AGENT_HOME: join(await baseDir(), "home"),
    PATH: process.env.PATH,
  });
}

/** What one `coding-agent run` on the fixture left behind. */
export interface FixtureRun {
  readonly cli: CapturedCliRun;
  readonly run: RunJson;
  readonly state: readonly StateEvent[];
  readonly trace: readonly TraceLine[];
  readonly patch: readonly PatchEntry[];
  readonly workspace: string;
}

/**
 * `coding-agent run <goal> --script <script> --workspace <copy of the fixture> --json` with
 * `flags`; `script` is a file (the task's own) or the turns, written to a file first.
 */
export async function runFixture(
  script: string | readonly unknown[],
  flags: readonly string[] = [],
): Promise<FixtureRun> {
  const dir = await freshDir("run");
  const workspace = join(dir, "repo");
  await cp(join(TASK_DIR, "repo"), workspace, { recursive: true });
  const scriptFile = typeof script === "string" ? script : join(dir, "script.json");
  if (typeof script !== "string") await writeFile(scriptFile, JSON.stringify(script));
  const goal = JSON.parse(await readFile(join(TASK_DIR, "task.json"), "utf8")).goal as string;
  const argv = ["run", goal, "--script", scriptFile, "--workspace", workspace, "--json"];
  const ran = await cli([...argv, "--approval", "auto", "--sandbox", "none", ...flags]);
  let run: RunJson;
  try {
    run = JSON.parse(ran.stdout) as RunJson;
  } catch {
    throw new Error(`coding-agent run 没有输出 JSON（退出码 ${ran.exitCode}）：${ran.stderr}`);
  }
  const records = await readRunRecords(join(await baseDir(), "home", "runs", run.runId));
  if (!records.ok) throw new Error(records.message);
  const before = snapshotFixture(await readFixture(join(TASK_DIR, "repo")));
  const patch = diffSnapshots(before, await snapshotWorkspace(workspace));
  return { cli: ran, run, state: records.state, trace: records.trace, patch, workspace };
}

/** What `coding-agent eval --json --baseline` printed, and its report. */
export interface EvalRun {
  readonly cli: CapturedCliRun;
  readonly report: EvalReport;
}

/**
 * `coding-agent eval <suite> --json --baseline <baseline.json>` over the capstone task and
 * the week-7 suite's fix-sum (the whole week-7 suite is the capstone package test's: five
 * agents are too many for every target of verify:lesson); `broken` names tasks whose agent
 * only claims to be done.
 */
export async function runEval(
  options: { readonly broken?: readonly string[] } = {},
): Promise<EvalRun> {
  const suite = join(await freshDir("suite"), "capstone-and-fix-sum");
  await cp(join(WEEK_07_SUITE, "fix-sum"), join(suite, "fix-sum"), { recursive: true });
  await cp(TASK_DIR, join(suite, TASK_ID), { recursive: true });
  for (const id of options.broken ?? []) {
    const claimOnly = [{ action: { type: "finish", summary: "已修好" } }];
    await writeFile(join(suite, id, "script.json"), JSON.stringify(claimOnly));
  }
  const ran = await cli(["eval", suite, "--json", "--baseline", BASELINE]);
  try {
    return { cli: ran, report: JSON.parse(ran.stdout) as EvalReport };
  } catch {
    throw new Error(`coding-agent eval 没有输出 JSON（退出码 ${ran.exitCode}）：${ran.stderr}`);
  }
}

/** The evidence of one run and one eval, as acceptCapstone reads it. */
export function evidenceOf(fixture: FixtureRun, evaluation: EvalRun): CapstoneEvidence {
  return {
    taskId: TASK_ID,
    allowPaths: ALLOW_PATHS,
    run: fixture.run,
    state: fixture.state,
    trace: fixture.trace,
    patch: fixture.patch,
    eval: evaluation.report,
  };
}

/** A value computed once, when first asked for. */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    value ??= make();
    return value;
  };
}
