import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProcess } from "../src/sandbox/exec.ts";
import { buildChildEnv, createSandboxPolicy } from "../src/sandbox/policy.ts";
import { createWorkspace, type Workspace } from "../src/workspace.ts";
import { MARK_NAME, markedEnv } from "./support/process-marks.ts";
import { createTempLayout, type TempLayout } from "./support/temp-workspace.ts";

let layout: TempLayout;
let workspace: Workspace;

/** A parent environment full of credentials, as a developer's shell often is. */
const PARENT_ENV: Record<string, string> = {
  ...markedEnv(),
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: "/home/dev",
  LANG: "zh_CN.UTF-8",
  OPENAI_API_KEY: "sk-parent-secret-1",
  ANTHROPIC_API_KEY: "sk-ant-parent-secret-2",
  GITHUB_TOKEN: "ghp_parent_secret_3",
  AWS_SECRET_ACCESS_KEY: "aws-parent-secret-4",
  DB_PASSWORD: "parent-secret-5",
  NPM_AUTH: "parent-secret-6",
  SESSION_COOKIE: "parent-secret-7",
  SOME_PRIVATE_THING: "parent-secret-8",
  EDITOR: "vim",
};

beforeAll(async () => {
  layout = await createTempLayout();
  workspace = createWorkspace(layout.workspace);
});
afterAll(() => layout.remove());

describe("createSandboxPolicy: programs", () => {
  const policy = () =>
    createSandboxPolicy({ workspace, allowCommands: ["node", "echo"], env: PARENT_ENV });

  it("resolves an allowed name on PATH to an absolute path", async () => {
    const resolved = await policy().resolveProgram("node");
    expect(resolved).toMatchObject({ ok: true, allowed: true });
    expect((resolved as { path: string }).path).toMatch(/^\/.*\/node$/);
  });

  it("resolves a name that is not allowed, marking it so", async () => {
    expect(await policy().resolveProgram("sh")).toMatchObject({ ok: true, allowed: false });
  });

  it.each([
    ["a relative path climbing out", "../bin/node"],
    ["a path into the workspace", "./node"],
    ["an absolute path", "/usr/bin/env"],
    ["an allowed name hidden behind a path", "/tmp/../usr/bin/node"],
    ["a Windows-style path", "..\\bin\\node"],
    ["an empty name", ""],
    ["`.`", "."],
    ["`..`", ".."],
    ["a name with a NUL byte", "node\0"],
  ])("refuses %s", async (_name, program) => {
    expect(await policy().resolveProgram(program)).toMatchObject({ ok: false });
  });

  it("refuses a program missing from PATH", async () => {
    expect(await policy().resolveProgram("no-such-program-xyz")).toMatchObject({ ok: false });
  });

  it("never finds a program planted in the workspace, even when PATH names the workspace", async () => {
    await mkdir(join(layout.workspace, "bin"), { recursive: true });
    const planted = join(layout.workspace, "bin", "echo");
    await writeFile(planted, "#!/bin/sh\necho planted\n");
    await chmod(planted, 0o755);
    const hijack = createSandboxPolicy({
      workspace,
      allowCommands: ["echo"],
      env: { ...PARENT_ENV, PATH: `${join(layout.workspace, "bin")}:.:bin:${PARENT_ENV.PATH}` },
    });
    const resolved = await hijack.resolveProgram("echo");
    expect(resolved).toMatchObject({ ok: true });
    expect((resolved as { path: string }).path.startsWith(layout.workspace)).toBe(false);
  });

  it("runs every command in the workspace root", () => {
    expect(policy().cwd).toBe(workspace.root);
  });
});

describe("createSandboxPolicy: environment", () => {
  it("keeps allowlisted variables and drops everything else", () => {
    const env = createSandboxPolicy({ workspace, allowCommands: [], env: PARENT_ENV }).env;
    expect(env).toEqual({ PATH: PARENT_ENV.PATH, HOME: "/home/dev", LANG: "zh_CN.UTF-8" });
  });

  it("never passes a secret-looking variable, even when allowlisted by name", () => {
    const env = buildChildEnv(PARENT_ENV, Object.keys(PARENT_ENV));
    expect(Object.keys(env).sort()).toEqual(["EDITOR", "HOME", "LANG", MARK_NAME, "PATH"].sort());
  });

  it.each([
    ["a plain object", { PATH: "/usr/bin" }],
    ["process.env", process.env],
  ])(
    "never takes a name inherited from the prototype of %s (constructor, toString)",
    (_name, parent) => {
      const env = buildChildEnv(parent, ["constructor", "toString", "hasOwnProperty", "__proto__"]);
      expect(Object.keys(env)).toEqual([]);
      expect(Object.getPrototypeOf(env)).toBe(Object.prototype);
    },
  );

  it("`env` run as a child shows none of the parent's secrets", async () => {
    const policy = createSandboxPolicy({
      workspace,
      allowCommands: ["env"],
      env: PARENT_ENV,
      allowEnv: [MARK_NAME, "GITHUB_TOKEN"],
    });
    const program = await policy.resolveProgram("env");
    if (!program.ok) throw new Error(program.reason);
    const result = await runProcess({
      argv: [program.path],
      cwd: policy.cwd,
      env: policy.env,
      timeoutMs: 10_000,
      maxOutputBytes: 100_000,
    });
    expect(result.exitCode).toBe(0);
    const leaked = Object.values(PARENT_ENV).filter(
      (value) => value.includes("secret") && result.stdout.includes(value),
    );
    expect(leaked).toEqual([]);
    expect(result.stdout).toContain("LANG=zh_CN.UTF-8");
  });
});
