import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { COPY_PREFIX, runCliCaptured } from "@coding-agent/cli";
import { startFakeModelServer } from "@coding-agent/providers/testing";
import type { CliRun, StreamRun, SubagentsRun, Week08Run } from "./week-08.ts";

/** The MCP server the checkpoint connects to: written by others, installed from the registry. */
const EVERYTHING = join(
  dirname(
    createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json"),
  ),
  "dist",
  "index.js",
);

const call = (tool: string, input: unknown) => ({ action: { type: "tool_call", tool, input } });
const finish = { action: { type: "finish", summary: "检查点完成" } };

/**
 * The checkpoint's real runs, in one temporary folder (removed afterwards) with its own
 * `$CODING_AGENT_HOME`: a workspace whose settings veto writes (trusted, then not), the
 * everything MCP server beside one that cannot start (approval auto, then deny), and a run
 * over `--provider openai` against a loopback API that rate-limits and cuts a stream, and a
 * run in a git repository whose two subagents work at once in their own worktrees.
 */
export async function runWeek08(): Promise<Week08Run> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "week-08-extensions-")));
  const env = { CODING_AGENT_HOME: join(base, "home"), PATH: process.env.PATH };
  const scripted = async (name: string, turns: unknown[], argv: string[]) => {
    const script = join(base, `${name}.json`);
    await writeFile(script, JSON.stringify(turns));
    return runCliCaptured(
      ["run", "检查点", "--script", script, "--json", "--finish-gate", "none", ...argv],
      env,
    );
  };
  try {
    const hooks = await runHooks(base, scripted);
    const mcp = await runMcp(base, scripted);
    const stream = await runStream(base, env);
    const subagents = await runSubagents(base, scripted);
    return { ...hooks, ...mcp, stream, subagents };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

type Scripted = (name: string, turns: unknown[], argv: string[]) => Promise<CliRun>;

/** The same settings twice: a trusted workspace runs the veto hook, an untrusted one does not. */
async function runHooks(base: string, scripted: Scripted) {
  const write = [call("write_file", { path: "note.txt", content: "写入\n" }), finish];
  const workspace = async (name: string) => {
    const dir = join(base, name);
    await mkdir(join(dir, ".coding-agent"), { recursive: true });
    const veto = { matcher: "write_file", command: "echo '检查点：不许写文件' >&2; exit 2" };
    await writeFile(
      join(dir, ".coding-agent", "settings.json"),
      JSON.stringify({ hooks: { PreToolUse: [veto] } }),
    );
    return dir;
  };
  const trustedDir = await workspace("trusted");
  const untrustedDir = await workspace("untrusted");
  const trusted = await scripted("hooks-trusted", write, [
    "--workspace",
    trustedDir,
    "--trust-workspace",
    "--approval",
    "auto",
  ]);
  const untrusted = await scripted("hooks-untrusted", write, [
    "--workspace",
    untrustedDir,
    "--approval",
    "auto",
  ]);
  return {
    hooks: {
      trusted,
      trustedWrote: existsSync(join(trustedDir, "note.txt")),
      untrusted,
      untrustedWrote: existsSync(join(untrustedDir, "note.txt")),
    },
  };
}

/** server-everything (its pids recorded) and a server whose command does not exist. */
async function runMcp(base: string, scripted: Scripted) {
  const workspace = join(base, "mcp");
  await mkdir(workspace);
  const pidFile = join(base, "mcp-pids");
  const config = join(base, "mcp.json");
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: {
        everything: {
          command: "sh",
          args: ["-c", `echo $$ >> '${pidFile}'; exec '${process.execPath}' '${EVERYTHING}' stdio`],
        },
        ghost: { command: join(base, "no-such-server") },
      },
    }),
  );
  const flags = ["--workspace", workspace, "--mcp-config", config];
  const echo = call("mcp__everything__echo", { message: "你好 MCP" });
  const auto = await scripted(
    "mcp-auto",
    [echo, call("mcp__ghost__ping", {}), finish],
    [...flags, "--approval", "auto"],
  );
  const denied = await scripted("mcp-deny", [echo, finish], [...flags, "--approval", "deny"]);
  const pids = existsSync(pidFile)
    ? readFileSync(pidFile, "utf8").trim().split("\n").filter(Boolean).map(Number)
    : [];
  return { mcp: { auto, denied, serverPids: pids, alive: pids.filter(alive) } };
}

/** Running means a /proc entry that is not a zombie. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] !== "Z";
  } catch {
    return false;
  }
}

/**
 * `--provider openai` against a loopback API: a 429 with `Retry-After: 1`, then a stream cut
 * after three events, then the same reply whole in 3-byte pieces (two tool calls), then the
 * final text.
 */
async function runStream(base: string, env: Record<string, string | undefined>) {
  const workspace = join(base, "stream");
  await mkdir(workspace);
  await writeFile(join(workspace, "notes.txt"), "第一行\n第二行\n");
  const key = `sk-proj-${"Week08ck".repeat(4)}`;
  const calls = [
    { name: "read_file", input: { path: "notes.txt" } },
    { name: "echo", input: { text: "读到了 “第一行”" } },
  ];
  const server = await startFakeModelServer({
    apiKey: key,
    script: [
      {
        status: 429,
        body: { error: { message: "Rate limit reached" } },
        retryAfter: { seconds: 1 },
      },
      { text: "被截断的半截回复", calls, stream: { cutAfter: { events: 3, how: "destroy" } } },
      { text: "我先读文件：", calls, stream: { chunkBytes: 3 } },
      { text: "文件有两行：第一行、第二行。", stream: { chunkBytes: 3 } },
    ],
  });
  try {
    const run = await runCliCaptured(
      [
        "run",
        "读一下 notes.txt",
        "--provider",
        "openai",
        "--model",
        "main-model",
        "--base-url",
        server.openaiBaseUrl,
        "--workspace",
        workspace,
        "--json",
        "--finish-gate",
        "none",
      ],
      { ...env, OPENAI_API_KEY: key },
    );
    const trace = await traceOf(env, run);
    const streamed: StreamRun = {
      run,
      key,
      requests: server.requests.length,
      streamedRequests: server.requests.filter(
        (request) => (request.body as { stream?: unknown } | null)?.stream === true,
      ).length,
      trace,
    };
    return streamed;
  } finally {
    await server.close();
  }
}

/** The run's trace.jsonl lines (empty when the run printed no result). */
async function traceOf(env: Record<string, string | undefined>, run: CliRun): Promise<string> {
  try {
    const { runId } = JSON.parse(run.stdout) as { runId: string };
    return await readFile(join(env.CODING_AGENT_HOME ?? "", "runs", runId, "trace.jsonl"), "utf8");
  } catch {
    return "";
  }
}

/**
 * `--subagents 2` in a git repository with an uncommitted change: one reply spawns two
 * children (one may edit only `src/a.txt`); the parent then applies the first child's change
 * with its own write_file and finishes. The fake model's turns tagged `agent` are the children's.
 */
async function runSubagents(base: string, scripted: Scripted): Promise<SubagentsRun> {
  const repo = join(base, "repo");
  await mkdir(join(repo, "src"), { recursive: true });
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" });
  git("init", "--quiet");
  git("config", "user.email", "checkpoint@example.com");
  git("config", "user.name", "checkpoint");
  await writeFile(join(repo, "src", "a.txt"), "a\n");
  git("add", "--all");
  git("commit", "--quiet", "-m", "init");
  await writeFile(join(repo, "src", "a.txt"), "a 未提交\n");
  const spawn = (goal: string, allowPaths?: string[]) => ({
    type: "tool_call",
    tool: "spawn_agent",
    input: { goal, ...(allowPaths === undefined ? {} : { allowPaths }) },
  });
  const write = (path: string, content: string) => ({
    type: "tool_call",
    tool: "write_file",
    input: { path, content },
  });
  const done = (summary: string) => ({ type: "finish", summary });
  const turns = [
    { actions: [spawn("改 a", ["src/a.txt"]), spawn("加 b")] },
    { action: write("src/a.txt", "A 子 Agent 改的\n") },
    finish,
    { agent: "改 a", action: write("src/a.txt", "A 子 Agent 改的\n") },
    { agent: "改 a", action: done("a 改好了") },
    { agent: "加 b", action: write("src/b.txt", "b\n") },
    { agent: "加 b", action: done("b 加好了") },
  ];
  const before = new Set(await readdir(tmpdir()));
  const run = await scripted("subagents", turns, [
    "--workspace",
    repo,
    "--subagents",
    "2",
    "--approval",
    "auto",
  ]);
  const copiesLeft = (await readdir(tmpdir())).filter(
    (name) => name.startsWith(COPY_PREFIX) && !before.has(name),
  );
  return {
    run,
    status: git("status", "--porcelain"),
    worktrees: (git("worktree", "list", "--porcelain").match(/^worktree /gm) ?? []).length,
    copiesLeft,
  };
}
