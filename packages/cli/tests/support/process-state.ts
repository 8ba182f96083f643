/**
 * What became of a process a test started, read from `/proc/<pid>/stat` (Linux, like the
 * sandbox tests): the tests that prove a run leaves no process behind ask one of the two
 * questions below, and which one is part of what they prove.
 */
import { readFileSync } from "node:fs";

/**
 * `running`: any state but a zombie's; `zombie`: it has ended, and its parent has not
 * reaped it yet; `gone`: no entry (reaped, or never was).
 */
export type ProcessState = "running" | "zombie" | "gone";

export function processState(pid: number): ProcessState {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return "gone";
  }
  // `pid (comm) S …`: the name may hold spaces and parentheses, the state follows the last ")".
  return stat.charAt(stat.lastIndexOf(")") + 2) === "Z" ? "zombie" : "running";
}

/**
 * Still running. A zombie has ended (it only waits for its parent — for an orphan, init —
 * to reap it), so it counts as dead: for a process the run does not reap itself.
 */
export function isRunning(pid: number): boolean {
  return processState(pid) === "running";
}

/**
 * Still in the process table, a zombie too: for a process the run must also have reaped
 * (its own child), where ended-but-unreaped is a leak.
 */
export function inProcessTable(pid: number): boolean {
  return processState(pid) !== "gone";
}
