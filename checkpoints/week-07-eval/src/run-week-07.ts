import { cp, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { runCliCaptured } from "@coding-agent/cli";
import { BROKEN_TASK, type CliRun, type Week07Run } from "./week-07.ts";

/** The suite `@coding-agent/eval` bundles: two fixes, a false "completed", a forbidden write. */
const BUNDLED_SUITE = join(
  dirname(createRequire(import.meta.url).resolve("@coding-agent/eval/package.json")),
  "examples/basic",
);

/**
 * The checkpoint's two real evaluations, in one temporary folder (removed afterwards) with
 * its own `$CODING_AGENT_HOME`: the bundled suite graded (JSON, JUnit, results written as
 * the baseline), then the same suite with one task's fix taken out, against that baseline.
 */
export async function runWeek07(): Promise<Week07Run> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "week-07-eval-")));
  const env = { CODING_AGENT_HOME: join(base, "home"), PATH: process.env.PATH };
  try {
    const suite = join(base, "basic");
    await cp(BUNDLED_SUITE, suite, { recursive: true });
    const junit = join(base, "junit.xml");
    const baseline = join(base, "baseline.json");
    const graded = await cli(
      ["eval", suite, "--json", "--junit", junit, "--baseline", baseline, "--update-baseline"],
      env,
    );
    // The agent of the broken task only claims to be done: its tests keep failing.
    const claimOnly = [{ action: { type: "finish", summary: "已修好" } }];
    await writeFile(join(suite, BROKEN_TASK, "script.json"), JSON.stringify(claimOnly));
    const gated = await cli(["eval", suite, "--json", "--baseline", baseline], env);
    return { graded, junit: await readFile(junit, "utf8").catch(() => ""), gated };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

/** `coding-agent <argv>` in this process, with exactly `env`. */
const cli = (argv: string[], env: Record<string, string | undefined>): Promise<CliRun> =>
  runCliCaptured(argv, env);
