/**
 * The runner's vitest child process (runner-child.js), started before it is needed: its
 * own start (Node, then vitest's modules: ~0.35 s of CPU) overlaps the caller's, e.g.
 * `verify:lesson` loading its modules, while the machine's other cores are idle. Only
 * Node built-ins here, so importing this module costs nothing before the call.
 */
import { type ChildProcess, fork } from "node:child_process";
import path from "node:path";

const CHILD_SCRIPT = path.join(import.meta.dirname, "runner-child.js");

let prestarted: ChildProcess | undefined;

/**
 * Forks the runner's vitest process (the leader of its own process group, so the parent
 * can kill it with every worker). Its stderr is piped for the caller to read.
 */
export function forkRunnerChild(): ChildProcess {
  return fork(CHILD_SCRIPT, [], {
    detached: true,
    stdio: ["ignore", "ignore", "pipe", "ipc"],
    execArgv: [],
  });
}

/**
 * Starts the runner's vitest process now, for the next `runLabTargets` of this process to
 * use. Never keeps this process alive: left unused (every verdict from the cache), the
 * child ends itself when this process exits and the IPC channel closes. Returns its pid.
 */
export function prestartRunner(): number | undefined {
  if (prestarted !== undefined) return prestarted.pid;
  const child = forkRunnerChild();
  child.unref();
  child.channel?.unref();
  (child.stderr as (NodeJS.ReadableStream & { unref?: () => void }) | null)?.unref?.();
  prestarted = child;
  return child.pid;
}

/** The prestarted child if it is still alive and connected (once), otherwise undefined. */
export function takePrestartedRunner(): ChildProcess | undefined {
  const child = prestarted;
  prestarted = undefined;
  if (child === undefined) return undefined;
  if (child.exitCode !== null || child.signalCode !== null || !child.connected) {
    return undefined;
  }
  child.ref();
  child.channel?.ref();
  (child.stderr as (NodeJS.ReadableStream & { ref?: () => void }) | null)?.ref?.();
  return child;
}

/**
 * Ends the prestarted child, if any, when the caller knows it will run nothing (every
 * verdict from the cache): it would otherwise go on loading vitest until this process exits.
 */
export function discardPrestartedRunner(): void {
  const child = prestarted;
  prestarted = undefined;
  if (child !== undefined) killProcessGroup(child);
}

/** Ends a runner child with every worker of its process group; nothing if it has ended. */
export function killProcessGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}
