import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { OWN_PROCESS_GROUP, type ProcessGroup } from "./process-group.ts";

/**
 * The variable a sandbox's bwrap sets inside it (`--setenv`), its value unique to one
 * command: it stands in bwrap's own command line, which is how a killed sandbox's leftover
 * is found (see `sandboxGroup`).
 */
export const SANDBOX_MARKER_ENV = "CODING_AGENT_SANDBOX";

/** A fresh marker for one sandboxed command. */
export function newSandboxMarker(): string {
  return randomUUID();
}

/**
 * The process group of one bwrap-sandboxed command: the default's SIGKILL to bwrap's whole
 * group, and, once this runtime has killed it, every process still carrying the command's
 * `marker` in its command line.
 *
 * Why: bwrap (0.8) clones the sandbox's first process and only then, inside it, asks the
 * kernel for `--die-with-parent`. A bwrap killed between the two leaves that process running,
 * reparented and outside the group (`--new-session`), and it goes on to run the command: a
 * Ctrl-C right after a command started left its `sleep 40` running 40 s. That process is a
 * copy of bwrap, so its command line is bwrap's, marker included; killing it (the first
 * process of the sandbox's PID namespace) ends everything in the sandbox. Looked for when
 * the kill is sent and again when bwrap has exited (`runProcess` calls `killAll("exit")`),
 * when no clone can still be under way; should this process exit before bwrap's exit is seen
 * (a second Ctrl-C), once more as it exits. A command that ends by itself is never looked for.
 */
export function sandboxGroup(marker: string): ProcessGroup {
  let killed = false;
  return {
    newGroup: true,
    killAll(child, reason) {
      OWN_PROCESS_GROUP.killAll(child, reason);
      if (reason === "exit") unlist(marker);
      else if (!killed) {
        killed = true;
        list(marker, child.pid);
      }
      if (killed) killMarked(marker);
    },
  };
}

/**
 * Killed sandboxes whose bwrap has not been seen to exit, by marker: this process may exit
 * first (a second Ctrl-C exits at once), so they are looked for once more as it does.
 */
const killedNotGone = new Map<string, number>();

function list(marker: string, bwrapPid: number): void {
  if (killedNotGone.size === 0) process.once("exit", lookOnceMore);
  killedNotGone.set(marker, bwrapPid);
}

function unlist(marker: string): void {
  if (!killedNotGone.delete(marker) || killedNotGone.size > 0) return;
  process.removeListener("exit", lookOnceMore);
}

/** On exit: waits (briefly) until each killed bwrap is dead, then ends what carries its marker. */
function lookOnceMore(): void {
  for (const [marker, pid] of killedNotGone) {
    waitUntilDead(pid, 200);
    killMarked(marker);
  }
  killedNotGone.clear();
}

/** Blocks until `pid` is gone or a zombie (it can clone nothing more), at most `maxMs`. */
function waitUntilDead(pid: number, maxMs: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; waited < maxMs; waited += 5) {
    let state: string | undefined;
    try {
      // "pid (comm) S ...": the state follows the last ")".
      const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
      state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    } catch {
      return;
    }
    if (state === "Z" || state === "X") return;
    Atomics.wait(pause, 0, 0, 5);
  }
}

/** SIGKILLs every process of this user whose command line holds `marker` as one argument. */
export function killMarked(marker: string): number {
  const needle = `\0${marker}\0`;
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  let killed = 0;
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, "latin1");
    } catch {
      continue; // Gone already, or not ours to read.
    }
    if (!`\0${cmdline}`.includes(needle)) continue;
    try {
      process.kill(Number(pid), "SIGKILL");
      killed += 1;
    } catch {
      // ESRCH: gone meanwhile; EPERM: another user's, not ours to end.
    }
  }
  return killed;
}
