import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentRunner, EvalTask } from "../../src/index.ts";

/** The fake `coding-agent` of support/fake-agent.mjs, logging into `log`. */
export function fakeRunner(log?: string): AgentRunner {
  return {
    command: process.execPath,
    args: [fileURLToPath(new URL("./fake-agent.mjs", import.meta.url))],
    env: { ...process.env, ...(log === undefined ? {} : { FAKE_AGENT_LOG: log }) },
  };
}

/** A task whose fixture holds `files`; its test command passes unless the task says otherwise. */
export function task(overrides: Partial<EvalTask> & { id: string }): EvalTask {
  return {
    goal: "ok",
    testCommand: "true",
    allowPaths: [],
    forbiddenPaths: [],
    args: [],
    expectStatus: "completed",
    files: [
      { path: "README.md", base64: Buffer.from("hello\n").toString("base64"), executable: false },
    ],
    ...overrides,
  };
}

/** Every folder `scratch` made; tests/support/cleanup.ts removes them after each test file. */
export const scratchFolders: string[] = [];

/** A fresh folder for one test. */
export async function scratch(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "coding-agent-eval-test-"));
  scratchFolders.push(dir);
  return dir;
}

/** Writes `<suite>/<id>/task.json` (and a one-file `repo/`) from `json`. */
export async function writeTask(suite: string, id: string, json: unknown): Promise<string> {
  const dir = path.join(suite, id);
  await mkdir(path.join(dir, "repo"), { recursive: true });
  await writeFile(path.join(dir, "repo", "a.txt"), "a\n");
  const file = path.join(dir, "task.json");
  await writeFile(file, typeof json === "string" ? json : JSON.stringify(json));
  return file;
}
