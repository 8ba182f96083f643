import { createHash } from "node:crypto";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";

export const BUGGY = "export function sum(a, b) {\n  return a - b;\n}\n";
export const FIXED = "export function sum(a, b) {\n  return a + b;\n}\n";
export const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * A small repository whose one `node:test` test fails until `sum` adds, in a fresh
 * temporary folder: `base` holds `repo/` (the workspace) and `outside.js` beside it.
 */
export async function createSumRepo(): Promise<{ base: string; workspace: string }> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "coding-agent-fix-")));
  const workspace = join(base, "repo");
  await mkdir(join(workspace, "src"), { recursive: true });
  await mkdir(join(workspace, "test"));
  await writeFile(
    join(workspace, "package.json"),
    JSON.stringify({ type: "module", scripts: { test: "node --test" } }),
  );
  await writeFile(join(workspace, "src", "sum.js"), BUGGY);
  await writeFile(
    join(workspace, "test", "sum.test.js"),
    'import test from "node:test";\nimport assert from "node:assert/strict";\nimport { sum } from "../src/sum.js";\n\ntest("sum adds", () => {\n  assert.equal(sum(2, 3), 5);\n});\n',
  );
  await writeFile(join(base, "outside.js"), "outside\n");
  return { base, workspace };
}

/** A test's sum repository and its own `$CODING_AGENT_HOME`. */
export interface SumRepoAndHome {
  readonly base: string;
  readonly workspace: string;
  readonly home: string;
}

/**
 * Gives every test of the file a fresh sum repository and `$CODING_AGENT_HOME` (handed to
 * `use` before the test), and removes both after it. The timeouts only turn a hang into a
 * failure.
 */
export function useSumRepoAndHome(use: (made: SumRepoAndHome) => void): void {
  let made: SumRepoAndHome | undefined;
  beforeEach(async () => {
    const repo = await createSumRepo();
    made = { ...repo, home: await mkdtemp(join(tmpdir(), "coding-agent-home-")) };
    use(made);
  }, 60_000);
  afterEach(async () => {
    if (made === undefined) return;
    await rm(made.base, { recursive: true, force: true });
    await rm(made.home, { recursive: true, force: true });
  }, 60_000);
}
