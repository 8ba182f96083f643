import { spawn } from "node:child_process";
import { cp, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCliCaptured } from "@coding-agent/cli";
import { startFakeModelServer } from "@coding-agent/providers/testing";
import { countTokens } from "gpt-tokenizer";
import { BUGGY_FILE, type CliRun, CONTEXT_BUDGET, type Week05Run } from "./week-05.ts";

/** The small repository: `src/sum.js` subtracts, one of its two tests fails until it adds. */
export const FIXTURE_REPO = fileURLToPath(new URL("./fixture-repo/", import.meta.url));

/** The CLI's development bin (runs its TypeScript sources): what a user's `pnpm exec` runs. */
const BIN = join(
  dirname(createRequire(import.meta.url).resolve("@coding-agent/cli/package.json")),
  "bin/coding-agent-dev.js",
);

const call = (tool: string, input: Record<string, unknown>) => ({
  action: { type: "tool_call", tool, input },
});
const finish = { action: { type: "finish", summary: "sum 改为相加，测试全部通过" } };
const fix = call("edit_file", { path: BUGGY_FILE, old: "return a - b;", new: "return a + b;" });

/** Finishes with no tests, with failing tests, with stale tests, then with fresh passing ones. */
export const GATE_SCRIPT = [
  finish,
  call("run_tests", {}),
  finish,
  fix,
  finish,
  call("run_tests", {}),
  finish,
];

/** Two reads taking turns forever: A-B-A-B with nothing new. */
export const LOOP_SCRIPT = Array.from({ length: 10 }, (_, index) =>
  index % 2 === 0 ? call("read_file", { path: BUGGY_FILE }) : call("list_files", {}),
);

/**
 * The checkpoint's four real runs of the capstone, each on a fresh copy of the fixture and
 * with its own `$CODING_AGENT_HOME`, all removed afterwards: the finish gate, a run killed
 * with SIGKILL and resumed, a loop, and a loopback-API run under a context budget.
 */
export async function runWeek05(): Promise<Week05Run> {
  return {
    gate: await inSandbox((box) => box.run(GATE_SCRIPT, ["--max-finish-rejections", "4"])),
    resume: await inSandbox(resumeAfterKill),
    loop: await inSandbox((box) => box.run(LOOP_SCRIPT, ["--finish-gate", "none"])),
    context: await inSandbox(underContextBudget),
  };
}

interface Sandbox {
  readonly base: string;
  readonly repo: string;
  readonly home: string;
  /** `coding-agent run … --script <turns> --workspace <repo> --json`, in this process. */
  run(turns: unknown[], flags?: string[]): Promise<CliRun>;
  cli(argv: string[], env?: Record<string, string | undefined>): Promise<CliRun>;
}

async function inSandbox<T>(body: (box: Sandbox) => Promise<T>): Promise<T> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "week-05-state-")));
  const repo = join(base, "repo");
  const home = join(base, "home");
  await cp(FIXTURE_REPO, repo, { recursive: true });
  const cli = (argv: string[], env: Record<string, string | undefined> = {}) =>
    runCliCaptured(argv, { CODING_AGENT_HOME: home, PATH: process.env.PATH, ...env });
  const box: Sandbox = {
    base,
    repo,
    home,
    cli,
    async run(turns, flags = []) {
      const script = join(base, "script.json");
      await writeFile(script, JSON.stringify(turns));
      return cli([
        "run",
        "修复失败的测试",
        "--script",
        script,
        "--workspace",
        repo,
        "--test-command",
        "node --test",
        "--approval",
        "auto",
        "--sandbox",
        "none",
        "--json",
        ...flags,
      ]);
    },
  };
  try {
    return await body(box);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

/**
 * Fixes the bug, then starts a slow command; the whole process group is killed with
 * SIGKILL once the command has begun (its marker file exists). Then `runs` and `resume`.
 */
async function resumeAfterKill(box: Sandbox): Promise<Week05Run["resume"]> {
  const marker = join(box.base, "command-ran.txt");
  const slow = call("run_command", {
    argv: [
      "node",
      "-e",
      `require("fs").appendFileSync(${JSON.stringify(marker)}, "x"); setTimeout(() => {}, 60000)`,
    ],
  });
  const script = join(box.base, "script.json");
  await writeFile(script, JSON.stringify([fix, slow, call("run_tests", {}), finish]));
  const child = spawn(
    process.execPath,
    [
      BIN,
      "run",
      "修复失败的测试",
      "--script",
      script,
      "--workspace",
      box.repo,
      "--test-command",
      "node --test",
      "--approval",
      "auto",
      "--sandbox",
      "none",
      "--allow-command",
      "node",
      "--json",
    ],
    { detached: true, stdio: "ignore", env: { ...process.env, CODING_AGENT_HOME: box.home } },
  );
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (_, signal) => resolve(signal === "SIGKILL" ? 137 : 0)),
  );
  let started = false;
  for (let waited = 0; waited < 60_000 && !started; waited += 50) {
    started = await readFile(marker).then(
      () => true,
      () => false,
    );
    if (!started) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  const killed = await exited;
  const listed = await box.cli(["runs", "--json"]);
  const runs = JSON.parse(listed.stdout) as Array<{ runId: string; status: string }>;
  const resumed =
    runs[0] === undefined ? undefined : await box.cli(["resume", runs[0].runId, "--json"]);
  return {
    killedBy: killed === 137 ? "SIGKILL" : "exit",
    statusBefore: runs[0]?.status ?? "none",
    resumed,
    commandRuns: (await readFile(marker, "utf8").catch(() => "")).length,
    fileAfter: await readFile(join(box.repo, BUGGY_FILE), "utf8"),
  };
}

/** A loopback OpenAI-style API; three 200 KB command outputs under `CONTEXT_BUDGET` tokens. */
async function underContextBudget(box: Sandbox): Promise<Week05Run["context"]> {
  const big = {
    name: "run_command",
    input: {
      argv: [
        "node",
        "-e",
        'process.stdout.write("output line lorem ipsum dolor sit amet 12345\\n".repeat(4500))',
      ],
    },
  };
  const server = await startFakeModelServer({
    apiKey: "local-key",
    script: [
      { calls: [big] },
      { calls: [{ name: "read_file", input: { path: BUGGY_FILE } }] },
      { calls: [big] },
      { calls: [big] },
      { text: "看完了三次大输出" },
    ],
  });
  try {
    const run = await box.cli(
      [
        "run",
        "看看大输出",
        "--provider",
        "openai",
        "--model",
        "m",
        "--base-url",
        server.openaiBaseUrl,
        "--workspace",
        box.repo,
        "--allow-command",
        "node",
        "--approval",
        "auto",
        "--sandbox",
        "none",
        "--finish-gate",
        "none",
        "--max-observation-chars",
        "2000",
        "--max-context-tokens",
        String(CONTEXT_BUDGET),
        "--json",
      ],
      { OPENAI_API_KEY: "local-key" },
    );
    const requestTokens = server.requests.map((request) => {
      const body = request.body as { messages?: unknown[]; tools?: unknown[] };
      return countTokens(
        JSON.stringify({ messages: body.messages ?? [], tools: body.tools ?? [] }),
      );
    });
    const runDir = (JSON.parse(run.stdout) as { runDir?: string }).runDir;
    const artifacts = runDir === undefined ? 0 : (await readdir(join(runDir, "artifacts"))).length;
    return { run, requestTokens, artifacts };
  } finally {
    await server.close();
  }
}
