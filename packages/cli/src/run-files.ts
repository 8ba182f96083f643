import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";

/**
 * Where a run's files live (docs/contracts.md §7): never in the workspace, whose diff they would
 * change, but under `$CODING_AGENT_HOME` (default `~/.coding-agent`), one folder a run:
 * `runs/<runId>/` with `state.jsonl`, `trace.jsonl` and `artifacts/`.
 */
export function codingAgentHome(env: Readonly<Record<string, string | undefined>>): string {
  const home = env.CODING_AGENT_HOME?.trim();
  return path.resolve(
    home === undefined || home === "" ? path.join(homedir(), ".coding-agent") : home,
  );
}

/** The folder of the run `runId` under `home`. */
export function runDirOf(home: string, runId: string): string {
  return path.join(home, "runs", runId);
}

/** A run's id: its start time (sortable, UTC) and 6 random hex digits. */
export function newRunId(now: Date = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z")
    .replace("T", "-");
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}

/** What a run id may look like: nothing that could name another folder. */
export const RUN_ID_PATTERN = /^[0-9A-Za-z][0-9A-Za-z_-]{0,99}$/;

/**
 * Creates a new run's folder (private to the user: it holds what the run saw). The folder
 * itself must not exist yet: a new run never appends to another run's records, whether its
 * id was generated or given with `--run-id`.
 */
export async function createRunDir(home: string, runId: string): Promise<string> {
  const dir = runDirOf(home, runId);
  await mkdir(path.dirname(dir), { recursive: true, mode: 0o700 });
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST")
      throw new Error(`运行 ${runId} 的目录已经存在（${dir}），新的运行要用没有用过的 ID`);
    throw error;
  }
  await mkdir(path.join(dir, "artifacts"), { mode: 0o700 });
  return dir;
}

/** One line of `coding-agent runs`. */
export interface RunSummary {
  readonly runId: string;
  readonly startedAt: string;
  readonly goal: string;
  /** The status of its `run_finished` event; `unfinished` for a run that never ended. */
  readonly status: string;
}

/**
 * Every run under `home` that has a readable first state line, newest first. A folder
 * without one (a run that failed before it logged anything) is left out.
 */
export async function listRuns(home: string): Promise<RunSummary[]> {
  const root = path.join(home, "runs");
  const names = await readdir(root).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [] as string[];
    throw error;
  });
  const runs: RunSummary[] = [];
  for (const runId of names) {
    if (!RUN_ID_PATTERN.test(runId)) continue;
    const text = await readFile(path.join(root, runId, "state.jsonl"), "utf8").catch(() => "");
    const summary = summarize(runId, text);
    if (summary !== undefined) runs.push(summary);
  }
  return runs.sort((a, b) =>
    a.startedAt === b.startedAt ? (a.runId < b.runId ? 1 : -1) : a.startedAt < b.startedAt ? 1 : -1,
  );
}

function summarize(runId: string, text: string): RunSummary | undefined {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const first = parse(lines[0]);
  if (first?.type !== "run_started") return undefined;
  let status = "unfinished";
  for (let index = lines.length - 1; index > 0; index -= 1) {
    const event = parse(lines[index]);
    if (event?.type === "run_finished") {
      status = String(event.status);
      break;
    }
  }
  return {
    runId,
    startedAt: String(first.startedAt ?? ""),
    goal: String(first.goal ?? ""),
    status,
  };
}

function parse(line: string | undefined): Record<string, unknown> | undefined {
  if (line === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
