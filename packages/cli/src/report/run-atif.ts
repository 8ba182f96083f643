import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readStateLog } from "../state/log.ts";
import { type AtifTrajectory, AtifTrajectorySchema, type RunCut, toAtif } from "./atif.ts";

/** A run read as an ATIF trajectory, or why it could not be (a Chinese message). */
export type RunAtif =
  | { readonly ok: true; readonly trajectory: AtifTrajectory }
  | { readonly ok: false; readonly message: string };

/**
 * The run of `runDir` as an ATIF trajectory, from its `state.jsonl` (the record a resume
 * trusts) and checked against the format's field list: what `trace --atif` writes, and what
 * an eval job writes for each trial. A run that was killed (`cut`: the eval's time limit, a
 * crash) gives what its log holds up to the kill, marked incomplete; a last line the kill
 * cut in half is left out and named. A log without even its first line is no trajectory.
 */
export async function readRunAtif(runDir: string, cut?: RunCut): Promise<RunAtif> {
  const log = await readStateLog(path.join(runDir, "state.jsonl"));
  if (!log.ok) return { ok: false, message: log.message };
  const checked = AtifTrajectorySchema.safeParse(
    toAtif(
      log.events,
      { name: "coding-agent", version: await cliVersion() },
      { ...(cut === undefined ? {} : { cut }), tornLastLine: log.warning !== undefined },
    ),
  );
  // toAtif only writes fields the RFC names: a failure here is this CLI's bug, said plainly.
  if (!checked.success)
    return { ok: false, message: `轨迹不符合 ATIF 字段表：${checked.error.message}` };
  return { ok: true, trajectory: checked.data };
}

/** This CLI's version, from its package.json (found above this module, in sources or dist). */
async function cliVersion(): Promise<string> {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const text = await readFile(path.join(dir, "package.json"), "utf8").catch(() => undefined);
    const parsed =
      text === undefined ? undefined : (JSON.parse(text) as { name?: string; version?: string });
    if (parsed?.name === "@coding-agent/cli" && typeof parsed.version === "string")
      return parsed.version;
    const parent = path.dirname(dir);
    if (parent === dir) return "0.0.0";
    dir = parent;
  }
}
