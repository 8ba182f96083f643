import { createHash } from "node:crypto";
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

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
