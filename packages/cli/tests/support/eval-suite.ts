import { cp, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The example suite @coding-agent/eval ships (four tasks, fake-model scripts, offline). */
export const BUNDLED_SUITE = fileURLToPath(
  new URL("../../../eval/examples/basic", import.meta.url),
);

/** A copy of the bundled suite in a fresh folder, to change a task without touching the original. */
export async function copyBundledSuite(): Promise<string> {
  const dir = path.join(await mkdtemp(path.join(tmpdir(), "coding-agent-suite-")), "basic");
  await cp(BUNDLED_SUITE, dir, { recursive: true });
  return dir;
}

/** Adds `<suite>/<id>/task.json` with a one-file fixture repository whose test passes. */
export async function addTask(suite: string, task: Record<string, unknown>): Promise<void> {
  const dir = path.join(suite, String(task.id));
  await mkdir(path.join(dir, "repo"), { recursive: true });
  await writeFile(
    path.join(dir, "repo", "ok.test.mjs"),
    'import test from "node:test";\ntest("ok", () => {});\n',
  );
  await writeFile(
    path.join(dir, "task.json"),
    JSON.stringify({ repo: "repo", testCommand: "node --test", goal: "等一会儿", ...task }),
  );
}
