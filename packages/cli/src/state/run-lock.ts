import { randomUUID } from "node:crypto";
import { link, readFile, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { isProcessAlive } from "@coding-agent/tools";

/** The lock file in a run folder: who runs or resumes the run now. */
export const RUN_LOCK_FILE = "owner.lock";

/** What the lock file holds: the owner's pid, and a token telling one holder from another. */
interface LockOwner {
  readonly pid: number;
  readonly token: string;
  readonly since: string;
}

/** A held lock; `release` removes it (only while it is still this holder's). */
export interface RunLock {
  release(): Promise<void>;
}

export type RunLockResult =
  | { readonly ok: true; readonly lock: RunLock }
  /** Another live process holds the run. */
  | { readonly ok: false; readonly reason: "held"; readonly pid: number }
  /** The folder cannot hold a lock (it does not exist, or cannot be written). */
  | { readonly ok: false; readonly reason: "unavailable"; readonly message: string };

/** Attempts at taking a lock whose files change under us before giving up as held. */
const MAX_ATTEMPTS = 200;

/**
 * Takes the run's lock (docs/contracts.md §8 "One owner per run"): at most one process runs or
 * resumes a run at a time, so no tool call runs twice and the state log gets one writer.
 *
 * The lock file appears whole or not at all: the owner is written to a private file
 * first and hard-linked to `owner.lock`, which fails when the name exists (an exclusive
 * create, like `O_EXCL`, but never seen half-written). A lock whose process is gone
 * (`process.kill(pid, 0)` says ESRCH) is stale and taken over: removed by one taker at a
 * time (`takeOverStale`), then created anew, where again only one wins. A pid reused by
 * another process counts as alive: the run is refused, never run twice.
 */
export async function acquireRunLock(runDir: string): Promise<RunLockResult> {
  const file = path.join(runDir, RUN_LOCK_FILE);
  const owner: LockOwner = {
    pid: process.pid,
    token: randomUUID(),
    since: new Date().toISOString(),
  };
  const text = JSON.stringify(owner);
  const mine = `${file}.${owner.token}`;
  try {
    await writeFile(mine, text, { mode: 0o600 });
  } catch (error) {
    return { ok: false, reason: "unavailable", message: (error as Error).message };
  }
  try {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const created = await link(mine, file).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code === "EEXIST") return false;
          throw error;
        },
      );
      if (created) return { ok: true, lock: heldLock(file, text) };
      const seen = await readFile(file, "utf8").catch(() => undefined);
      if (seen === undefined) continue; // Released or moved aside just now: try again.
      const holder = parseOwner(seen);
      if (holder !== undefined && isProcessAlive(holder.pid))
        return { ok: false, reason: "held", pid: holder.pid };
      await takeOverStale(file, seen, mine);
    }
    const last = parseOwner((await readFile(file, "utf8").catch(() => "")) ?? "");
    return { ok: false, reason: "held", pid: last?.pid ?? 0 };
  } catch (error) {
    return { ok: false, reason: "unavailable", message: (error as Error).message };
  } finally {
    await unlink(mine).catch(() => {});
  }
}

/**
 * Removes the stale lock `seen` under a takeover guard (`owner.lock.takeover`, created like
 * the lock itself), so that only one process judges and removes it: without the guard, one
 * taker could remove the fresh lock another had just made. Returns false when another
 * process is taking over now (the caller tries again).
 */
async function takeOverStale(file: string, seen: string, mine: string): Promise<boolean> {
  const guard = `${file}.takeover`;
  const entered = await link(mine, guard).then(
    () => true,
    () => false,
  );
  if (!entered) {
    // A taker that died inside its guard leaves it behind: a guard whose process is gone is removed.
    const holder = parseOwner((await readFile(guard, "utf8").catch(() => undefined)) ?? "");
    if (holder !== undefined && !isProcessAlive(holder.pid)) await unlink(guard).catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 10));
    return false;
  }
  try {
    // Judged again inside the guard: still the very lock that was found stale.
    if ((await readFile(file, "utf8").catch(() => undefined)) === seen)
      await unlink(file).catch(() => {});
    return true;
  } finally {
    await unlink(guard).catch(() => {});
  }
}

function heldLock(file: string, text: string): RunLock {
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      // Only our own lock: one taken over (we were presumed dead) belongs to another now.
      const current = await readFile(file, "utf8").catch(() => undefined);
      if (current === text) await unlink(file).catch(() => {});
    },
  };
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    return typeof value.pid === "number" && Number.isInteger(value.pid) && value.pid > 0
      ? (value as LockOwner)
      : undefined;
  } catch {
    return undefined;
  }
}
