import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";

/** A subagent test's folder `base`: its workspace `ws/`, its `tmp/` and a `marks/` folder. */
export interface SubagentFolders {
  readonly base: string;
  readonly ws: string;
  /** `$TMPDIR` while the test runs: the children's copies go here, so it can be seen empty. */
  readonly temp: string;
  /** For marks the children's commands leave, outside their copies. */
  readonly marks: string;
}

/**
 * Gives every test of the file fresh folders (the base's name starting with `prefix`),
 * handed to `use` before the test, with `$TMPDIR` pointing at `temp`; after the test
 * `$TMPDIR` is as it was and the folder is gone.
 */
export function useSubagentFolders(
  prefix: string,
  use: (made: SubagentFolders) => void | Promise<void>,
): void {
  let base: string | undefined;
  let savedTmp: string | undefined;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), prefix));
    const made = {
      base,
      ws: join(base, "ws"),
      temp: join(base, "tmp"),
      marks: join(base, "marks"),
    };
    await Promise.all([mkdir(made.ws), mkdir(made.temp), mkdir(made.marks)]);
    savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = made.temp;
    await use(made);
  });
  afterEach(async () => {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    if (base !== undefined) await rm(base, { recursive: true, force: true });
  });
}
