import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCliCaptured } from "@coding-agent/cli";
import { BLOCKED_MARKER, OUTSIDE_SECRET, README_TEXT, type Week03Run } from "./week-03.ts";

/** The fake model's turns: look around, run an allowed command, try to leave, ask for more. */
export const WEEK_03_SCRIPT = [
  { action: { type: "tool_call", tool: "list_files", input: {} } },
  { action: { type: "tool_call", tool: "read_file", input: { path: "README.md" } } },
  { action: { type: "tool_call", tool: "run_command", input: { argv: ["node", "--version"] } } },
  { action: { type: "tool_call", tool: "read_file", input: { path: "../outside.txt" } } },
  {
    action: { type: "tool_call", tool: "run_command", input: { argv: ["touch", BLOCKED_MARKER] } },
  },
  { action: { type: "finish", summary: "不应到达：touch 不在允许的命令里" } },
];

/**
 * Runs `coding-agent run` offline in a fresh temporary workspace, as a user would:
 * `--script` drives the fake model, `--allow-command node`, `--approval deny`.
 * Returns the exit code, the `--json` result, and whether the refused command left
 * its file behind. The temporary folders, the run's own `$CODING_AGENT_HOME` among them,
 * are removed afterwards.
 */
export async function runWeek03(script: readonly unknown[] = WEEK_03_SCRIPT): Promise<Week03Run> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "week-03-sandbox-")));
  try {
    const workspace = join(base, "workspace");
    await mkdir(join(workspace, "src"), { recursive: true });
    await writeFile(join(workspace, "README.md"), README_TEXT);
    await writeFile(join(workspace, "src", "index.ts"), "export const answer = 42;\n");
    await writeFile(join(base, "outside.txt"), OUTSIDE_SECRET);
    const scriptPath = join(base, "script.json");
    await writeFile(scriptPath, JSON.stringify(script));
    // Its own $CODING_AGENT_HOME: the run's records go nowhere near the learner's.
    // Progress and the sandbox warning on stderr: not part of the verdict.
    const { exitCode, stdout } = await runCliCaptured(
      [
        "run",
        "看看这个仓库并运行 node --version",
        "--script",
        scriptPath,
        "--workspace",
        workspace,
        "--allow-command",
        "node",
        "--approval",
        "deny",
        "--json",
      ],
      { CODING_AGENT_HOME: join(base, "home"), PATH: process.env.PATH },
    );
    return { exitCode, stdout, blockedCommandRan: existsSync(join(workspace, BLOCKED_MARKER)) };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}
