/**
 * `coding-agent eval` runs each task as a child `coding-agent run`: the child gets the
 * environment the CLI was given, so its run folder lands in that `$CODING_AGENT_HOME` (a
 * checkpoint's or a lab test's temporary one), never in the home of the process around it.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addTask } from "./support/eval-suite.ts";
import { captureCli, finish } from "./support/run-cli.ts";

let base: string;
beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), "eval-run-home-"));
});
afterEach(() => rm(base, { recursive: true, force: true }));

const runsIn = (home: string) => readdir(path.join(home, "runs")).catch(() => [] as string[]);

describe("coding-agent eval with a given $CODING_AGENT_HOME", () => {
  it("writes every task's run there, and nothing into the surrounding process's home", async () => {
    const suite = path.join(base, "suite");
    await addTask(suite, { id: "say-done", script: [finish], args: ["--finish-gate", "none"] });
    await addTask(suite, { id: "say-done-too", script: [finish], args: ["--finish-gate", "none"] });
    const home = path.join(base, "home");
    // The test process's own home (set by tests/support/isolate.ts) stands for the user's.
    const surrounding = process.env.CODING_AGENT_HOME ?? "";
    const before = await runsIn(surrounding);

    const ran = await captureCli(["eval", suite, "--json"], {
      CODING_AGENT_HOME: home,
      PATH: process.env.PATH,
    });

    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.result).toMatchObject({ passed: 2, total: 2 });
    expect(await runsIn(home)).toHaveLength(2);
    expect(await runsIn(surrounding)).toEqual(before);
  });
});
