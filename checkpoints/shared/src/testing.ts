import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * What `body` left in the caller's `$CODING_AGENT_HOME`: it runs with that variable pointed at
 * a fresh empty folder, and the names in it afterwards are returned (the folder is removed and
 * the variable restored). A checkpoint runs the capstone in its own temporary home, so the
 * answer is `[]`; anything else is a run record written into the learner's real home.
 */
export async function leftInCallersHome(body: () => Promise<unknown>): Promise<string[]> {
  const home = await mkdtemp(join(tmpdir(), "checkpoint-callers-home-"));
  const saved = process.env.CODING_AGENT_HOME;
  process.env.CODING_AGENT_HOME = home;
  try {
    await body();
    return await readdir(home);
  } finally {
    if (saved === undefined) delete process.env.CODING_AGENT_HOME;
    else process.env.CODING_AGENT_HOME = saved;
    await rm(home, { recursive: true, force: true });
  }
}
