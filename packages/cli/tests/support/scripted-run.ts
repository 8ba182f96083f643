import { writeFile } from "node:fs/promises";
import { join } from "node:path";

/** `coding-agent run <goal> --script <script> --workspace <workspace> --json`, then `more`. */
export const runArgv = (goal: string, script: string, workspace: string, ...more: string[]) => [
  "run",
  goal,
  "--script",
  script,
  "--workspace",
  workspace,
  "--json",
  ...more,
];

/** A run that may finish without test evidence. */
export const NO_FINISH_GATE = ["--finish-gate", "none"] as const;

/** A run whose edits and commands go ahead unasked and unsandboxed. */
export const UNATTENDED = ["--approval", "auto", "--sandbox", "none"] as const;

/** Writes scripted model turns to `<dir>/script.json`, for `--script`; returns its path. */
export async function writeScript(dir: string, turns: unknown): Promise<string> {
  const script = join(dir, "script.json");
  await writeFile(script, JSON.stringify(turns));
  return script;
}
