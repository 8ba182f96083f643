import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";

/** A test's temporary folder `base`, holding a workspace `ws/` and a `$CODING_AGENT_HOME` `home/`. */
export interface WorkspaceAndHome {
  readonly base: string;
  readonly workspace: string;
  readonly home: string;
}

/**
 * Gives every test of the file a fresh temporary folder (its name starting with `prefix`)
 * holding an empty workspace and `$CODING_AGENT_HOME`, handed to `use` before the test (which
 * may lay out more in it), and removes the folder after it. The timeouts only turn a hang
 * into a failure.
 */
export function useWorkspaceAndHome(
  prefix: string,
  use: (made: WorkspaceAndHome) => void | Promise<void>,
): void {
  let base: string | undefined;
  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), prefix)));
    const made = { base, workspace: join(base, "ws"), home: join(base, "home") };
    await Promise.all([mkdir(made.workspace), mkdir(made.home)]);
    await use(made);
  }, 60_000);
  afterEach(async () => {
    if (base !== undefined) await rm(base, { recursive: true, force: true });
  }, 60_000);
}
