import { existsSync, realpathSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRunCommand } from "../src/run-command.ts";
import { buildBwrapArgv } from "../src/sandbox/bwrap.ts";
import { createSandboxPolicy } from "../src/sandbox/policy.ts";
import { chooseSandbox, type SandboxChoice } from "../src/sandbox/sandbox-mode.ts";
import { createWorkspace } from "../src/workspace.ts";
import { bwrapForTests, requireBwrap } from "./support/bwrap.ts";
import { MARK_NAME } from "./support/process-marks.ts";
import { createTempLayout, type TempLayout } from "./support/temp-workspace.ts";

describe("buildBwrapArgv", () => {
  const argv = buildBwrapArgv({
    bwrap: "/usr/bin/bwrap",
    workspace: "/tmp/ws",
    argv: ["/usr/bin/node", "--version"],
  });
  const flagIndex = (flag: string, value?: string) =>
    argv.findIndex((item, i) => item === flag && (value === undefined || argv[i + 1] === value));

  it("mounts the root read-only and the workspace as the only writable bind", () => {
    expect(argv.slice(flagIndex("--ro-bind"), flagIndex("--ro-bind") + 3)).toEqual([
      "--ro-bind",
      "/",
      "/",
    ]);
    expect(argv.filter((item) => item === "--bind" || item === "--bind-try")).toEqual(["--bind"]);
    expect(argv.slice(flagIndex("--bind"), flagIndex("--bind") + 3)).toEqual([
      "--bind",
      "/tmp/ws",
      "/tmp/ws",
    ]);
  });

  it("makes /tmp private before binding the workspace (so a workspace in /tmp stays visible)", () => {
    expect(flagIndex("--tmpfs", "/tmp")).toBeGreaterThan(0);
    expect(flagIndex("--tmpfs", "/tmp")).toBeLessThan(flagIndex("--bind"));
  });

  it.each(["--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session"])(
    "isolates with %s",
    (flag) => {
      expect(argv).toContain(flag);
    },
  );

  it("binds the agent's own configuration read-only, after (over) the writable workspace", () => {
    for (const file of ["/tmp/ws/.coding-agent", "/tmp/ws/.mcp.json"]) {
      expect(flagIndex("--ro-bind-try", file), file).toBeGreaterThan(flagIndex("--bind"));
      expect(argv[flagIndex("--ro-bind-try", file) + 2]).toBe(file);
    }
  });

  it("binds the scripts hooks and MCP servers run read-only, as the policy names them", () => {
    const policy = createSandboxPolicy({
      workspace: { root: "/tmp/ws", contains: () => true, resolve: () => Promise.reject() },
      allowCommands: [],
      protectedFiles: ["scripts/hook.sh", "../outside.sh"],
    });
    const withScripts = buildBwrapArgv({
      bwrap: "/usr/bin/bwrap",
      workspace: "/tmp/ws",
      argv: ["/bin/true"],
      ...(policy.readOnly === undefined ? {} : { readOnly: policy.readOnly }),
    });
    const bound = withScripts.flatMap((item, i) =>
      item === "--ro-bind-try" ? [withScripts[i + 1]] : [],
    );
    expect(bound).toEqual([
      "/tmp/ws/.coding-agent",
      "/tmp/ws/.mcp.json",
      "/tmp/ws/scripts/hook.sh",
    ]);
  });

  it("starts in the workspace and passes the command after --, untouched", () => {
    expect(argv.slice(flagIndex("--chdir"), flagIndex("--chdir") + 2)).toEqual([
      "--chdir",
      "/tmp/ws",
    ]);
    expect(argv.slice(argv.indexOf("--"))).toEqual(["--", "/usr/bin/node", "--version"]);
    expect(argv[0]).toBe("/usr/bin/bwrap");
  });
});

describe("chooseSandbox", () => {
  it("refuses --sandbox bwrap without bwrap, saying how to install it", async () => {
    const choice = await chooseSandbox({
      mode: "bwrap",
      workspace: "/",
      env: { PATH: "/nonexistent" },
    });
    expect(choice).toMatchObject({ kind: "unavailable" });
    expect((choice as { message: string }).message).toContain("apt-get install -y bubblewrap");
  });

  it("falls back to policy only under auto, with one Chinese warning line", async () => {
    const choice = await chooseSandbox({
      mode: "auto",
      workspace: "/",
      env: { PATH: "/nonexistent" },
    });
    expect(choice.kind).toBe("none");
    const warning = (choice as { warning: string }).warning;
    expect(warning).toMatch(/^警告：.*bubblewrap/);
    expect(warning).not.toContain("\n");
  });

  it("does not try bwrap off Linux", async () => {
    const choice = await chooseSandbox({ mode: "auto", workspace: "/", platform: "darwin" });
    expect(choice).toMatchObject({ kind: "none", warning: expect.stringContaining("darwin") });
  });

  it("uses no sandbox and no warning under none", async () => {
    expect(await chooseSandbox({ mode: "none", workspace: "/" })).toEqual({ kind: "none" });
  });
});

describe("run_command inside bubblewrap", () => {
  let layout: TempLayout;
  let choice: SandboxChoice;
  let server: Server;
  let port = 0;
  let connections = 0;

  beforeAll(async () => {
    // Not under /tmp: inside the sandbox /tmp is private, so a write to a place outside
    // the workspace there would fail for a reason other than the read-only root. The
    // repository itself may be a clone under /tmp (as in CI); then /var/tmp is used.
    const cacheDir = join(import.meta.dirname, "..", "node_modules", ".cache");
    const underTmp = (realpathSync(import.meta.dirname) + sep).startsWith(
      `${realpathSync(tmpdir())}${sep}`,
    );
    layout = await createTempLayout(underTmp ? "/var/tmp" : cacheDir);
    choice = await bwrapForTests(layout.workspace);
    server = createServer((socket) => {
      connections++;
      socket.on("error", () => {});
      socket.end("hello from the host\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await layout.remove();
  });

  const runIn = (sandbox: SandboxChoice) => {
    if (sandbox.kind === "unavailable") throw new Error(sandbox.message);
    const workspace = createWorkspace(layout.workspace);
    return createRunCommand({
      policy: createSandboxPolicy({
        workspace,
        allowCommands: ["sh", "node", "sleep"],
        allowEnv: [MARK_NAME],
      }),
      sandbox,
      approval: "deny",
      defaultTimeoutMs: 10_000,
    });
  };
  const connectScript = (p: number) =>
    `require("net").connect(${p}, "127.0.0.1").on("connect", () => { console.log("connected"); process.exit(0) }).on("error", (e) => { console.log("refused " + e.code); process.exit(7) })`;

  it("cannot create a file outside the workspace, and can inside it", async (context) => {
    requireBwrap(choice, context);
    const outsideFile = join(layout.outside, "written-from-sandbox.txt");
    const result = await runIn(choice)({
      argv: ["sh", "-c", `echo x > ${outsideFile}; echo y > inside.txt; echo done`],
    });
    expect(result).toMatchObject({ stdout: "done\n" });
    expect((result as { stderr: string }).stderr).toMatch(/Read-only file system/);
    expect(existsSync(outsideFile)).toBe(false);
    expect(await readFile(join(layout.workspace, "inside.txt"), "utf8")).toBe("y\n");
  });

  it("control: without bwrap the same command does write outside (the test can fail)", async () => {
    const outsideFile = join(layout.outside, "written-without-sandbox.txt");
    await runIn({ kind: "none" })({ argv: ["sh", "-c", `echo x > ${outsideFile}`] });
    expect(existsSync(outsideFile)).toBe(true);
  });

  it("cannot connect to a loopback server started by the test", async (context) => {
    requireBwrap(choice, context);
    const before = connections;
    const result = await runIn(choice)({ argv: ["node", "-e", connectScript(port)] });
    expect(result).toMatchObject({ exitCode: 7 });
    expect((result as { stdout: string }).stdout).toMatch(/^refused /);
    expect(connections).toBe(before);
  });

  it("control: without bwrap the same command connects (the test can fail)", async () => {
    const before = connections;
    const result = await runIn({ kind: "none" })({ argv: ["node", "-e", connectScript(port)] });
    expect(result).toMatchObject({ exitCode: 0, stdout: "connected\n" });
    expect(connections).toBe(before + 1);
  });

  it("gets a private /tmp: what it writes there never reaches the host", async (context) => {
    requireBwrap(choice, context);
    const name = `/tmp/coding-agent-sandbox-${process.pid}-${Date.now()}`;
    const result = await runIn(choice)({ argv: ["sh", "-c", `echo x > ${name} && cat ${name}`] });
    expect(result).toMatchObject({ exitCode: 0, stdout: "x\n" });
    expect(existsSync(name)).toBe(false);
  });

  it("kills even a process that escaped the group with setsid when the call times out", async (context) => {
    requireBwrap(choice, context);
    const result = await runIn(choice)({
      argv: ["sh", "-c", "setsid sleep 100 & sleep 100"],
      timeoutMs: 500,
    });
    expect(result).toMatchObject({ ok: false, error: { code: "timeout" } });
    // The suite's after-each check fails the test if any sleep survived.
  });
});
