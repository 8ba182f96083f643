/**
 * Every way to stop cleans up (docs/contracts.md §8): SIGTERM and SIGHUP end a run like Ctrl-C
 * (`cancelled`, exit 143 / 129), with the command's process group, the MCP server and what
 * the server started all gone; and the CLI exits once a run ends even while a server's
 * child holds the server's stderr open. Real processes, checked through /proc.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isRunning } from "./support/process-state.ts";
import { call, finish } from "./support/run-cli.ts";
import { EVERYTHING } from "./support/server-everything.ts";
import { BIN } from "./support/spawn-bin.ts";

// Real processes: the timeout only turns a hang (a CLI that never exits) into a failure.
const HANG_GUARD = { timeout: 60_000 };

let base: string;
let ws: string;
let home: string;
const file = (name: string) => join(base, name);
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "coding-agent-stop-")));
  ws = join(base, "ws");
  home = join(base, "home");
  await Promise.all([mkdir(ws), mkdir(home)]);
});
afterEach(async () => {
  // Whatever a failing test left running is not left to the next one.
  for (const pid of recorded()) if (isRunning(pid)) process.kill(pid, "SIGKILL");
  await rm(base, { recursive: true, force: true });
});

/** Every pid the server and the command wrote down. */
const recorded = () =>
  ["pids"].flatMap((name) =>
    existsSync(file(name))
      ? readFileSync(file(name), "utf8").trim().split("\n").filter(Boolean).map(Number)
      : [],
  );

/**
 * An MCP server whose shell first starts a background child that keeps the server's
 * stdout and stderr open, then becomes the server.
 */
async function mcpConfig() {
  const pids = file("pids");
  const config = file("mcp.json");
  const shell = `sleep 300 & echo $! >> '${pids}'; echo $$ >> '${pids}'; exec '${process.execPath}' '${EVERYTHING}' stdio`;
  await writeFile(
    config,
    JSON.stringify({ mcpServers: { held: { command: "sh", args: ["-c", shell] } } }),
  );
  return config;
}

/** Starts the real bin; sends `signal` once `when` exists; resolves when it exits. */
function runBin(turns: unknown[], options: { signal?: NodeJS.Signals; when?: string } = {}) {
  return (async () => {
    const script = file("script.json");
    await writeFile(script, JSON.stringify(turns));
    const child = spawn(
      process.execPath,
      [
        BIN,
        "run",
        "停下",
        "--script",
        script,
        "--workspace",
        ws,
        "--json",
        "--mcp-config",
        await mcpConfig(),
        "--approval",
        "auto",
        "--allow-command",
        "sh",
        "--sandbox",
        "none",
        "--finish-gate",
        "none",
      ],
      {
        stdio: ["ignore", "pipe", "pipe"],
        env: { CODING_AGENT_HOME: home, PATH: process.env.PATH },
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    // `exit`, not `close`: a pipe a leftover child holds must not hide that the CLI exited.
    const exited = new Promise<number | null>((resolve) =>
      child.on("exit", (code) => resolve(code)),
    );
    if (options.signal !== undefined && options.when !== undefined) {
      while (!existsSync(options.when) && child.exitCode === null)
        await new Promise((resolve) => setTimeout(resolve, 50));
      child.kill(options.signal);
    }
    const code = await exited;
    return { code, stdout, stderr };
  })();
}

describe("stop signals", HANG_GUARD, () => {
  it.each([
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const)(
    "%s cancels the run (exit %i) and leaves no process: command group, server, server's child",
    async (signal, exitCode) => {
      const started = join(ws, "started");
      const command = call("run_command", {
        argv: ["sh", "-c", `sleep 300 & echo $! >> '${file("pids")}'; touch started; wait`],
      });
      const { code, stdout, stderr } = await runBin(
        [call("mcp__held__echo", { message: "x" }), command, finish],
        { signal, when: started },
      );
      expect(code).toBe(exitCode);
      expect(JSON.parse(stdout).status).toBe("cancelled");
      expect(stderr).toContain(`收到 ${signal}`);
      // Two from the server (its child, itself) and one from the command.
      expect(recorded()).toHaveLength(3);
      expect(recorded().filter(isRunning)).toEqual([]);
    },
  );

  it("exits once a run ends, though the MCP server's child holds its stderr open", async () => {
    const { code, stdout } = await runBin([call("mcp__held__echo", { message: "x" }), finish]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).status).toBe("completed");
    expect(recorded()).toHaveLength(2);
    expect(recorded().filter(isRunning)).toEqual([]);
  });
});
