import { createHash } from "node:crypto";
import { cp, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCliCaptured } from "@coding-agent/cli";
import { BUGGY_FILE, type RepoRun, TEST_FILE, type Week04Run } from "./week-04.ts";

/** The small repository the agent fixes: `src/sum.js` subtracts, one of its two tests fails. */
export const FIXTURE_REPO = fileURLToPath(new URL("./fixture-repo/", import.meta.url));

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

const call = (tool: string, input: Record<string, unknown>) => ({
  action: { type: "tool_call", tool, input },
});

/**
 * The fake model's turns for the fix: run the tests, read the file, edit it with the
 * hash `read_file` reports for the fixture's bytes (a real model copies it from the
 * read), run the tests again, finish.
 */
export async function fixScript(): Promise<unknown[]> {
  const hash = sha256(await readFile(join(FIXTURE_REPO, BUGGY_FILE)));
  return [
    call("run_tests", {}),
    call("read_file", { path: BUGGY_FILE }),
    call("edit_file", {
      path: BUGGY_FILE,
      old: "return a - b;",
      new: "return a + b;",
      expectedHash: hash,
    }),
    call("run_tests", {}),
    { action: { type: "finish", summary: "sum 改为相加，测试全部通过" } },
  ];
}

/** The fake model's turns for the transaction: two edits in one apply_edits, the second cannot apply. */
export const TRANSACTION_SCRIPT = [
  call("apply_edits", {
    edits: [
      { path: BUGGY_FILE, old: "return a - b;", new: "return a + b;" },
      { path: TEST_FILE, old: "this text is not in the test file", new: "x" },
    ],
  }),
  { action: { type: "finish", summary: "不应只改了一半" } },
];

/**
 * Runs `coding-agent run` twice, offline, each on a fresh copy of the fixture
 * repository, as a user would (`--script`, `--test-command "node --test"`,
 * `--approval auto`, `--json`): once to fix the bug, once with a two-file
 * `apply_edits` whose second edit fails. Returns what each run printed and the
 * bytes of the files before and after. The temporary folders are removed.
 */
export async function runWeek04(
  scripts: { readonly fix?: unknown[]; readonly transaction?: unknown[] } = {},
): Promise<Week04Run> {
  return {
    fix: await runOnFixture(scripts.fix ?? (await fixScript())),
    transaction: await runOnFixture(scripts.transaction ?? TRANSACTION_SCRIPT),
  };
}

/** One run of `script` on a fresh copy of the fixture (in a temporary folder, removed after). */
export async function runOnFixture(script: unknown[]): Promise<RepoRun> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "week-04-edits-")));
  try {
    return await runOnCopy(base, script);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

async function runOnCopy(base: string, script: unknown[]): Promise<RepoRun> {
  const repo = join(base, "repo");
  await cp(FIXTURE_REPO, repo, { recursive: true });
  const hashes = async () =>
    Object.fromEntries(
      await Promise.all(
        [BUGGY_FILE, TEST_FILE].map(async (file) => [
          file,
          sha256(await readFile(join(repo, file))),
        ]),
      ),
    ) as Record<string, string>;
  const before = await hashes();
  const scriptPath = join(base, "script.json");
  await writeFile(scriptPath, JSON.stringify(script));
  // Its own $CODING_AGENT_HOME: the run's records go nowhere near the learner's.
  // Progress, the sandbox warning and the changed-file list on stderr: not part of the verdict.
  const { exitCode, stdout } = await runCliCaptured(
    [
      "run",
      "修复失败的测试",
      "--script",
      scriptPath,
      "--workspace",
      repo,
      "--test-command",
      "node --test",
      "--approval",
      "auto",
      "--json",
    ],
    { CODING_AGENT_HOME: join(base, "home"), PATH: process.env.PATH },
  );
  return { exitCode, stdout, before, after: await hashes() };
}
