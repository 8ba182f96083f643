import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineTool, runAgent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import {
  createRunCommand,
  createWorkspace,
  DEFAULT_ENV_ALLOWLIST,
  RunCommandInputSchema,
  runProcess,
} from "@coding-agent/tools";
import { buildChildEnv, createPolicy } from "@lab";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** A developer's shell: credentials, and variables that change how programs run. */
const PARENT_ENV: Readonly<Record<string, string>> = {
  PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
  HOME: "/home/dev",
  LANG: "zh_CN.UTF-8",
  OPENAI_API_KEY: "sk-parent-secret-openai",
  GITHUB_TOKEN: "ghp-parent-secret-github",
  AWS_SECRET_ACCESS_KEY: "parent-secret-aws",
  DB_PASSWORD: "parent-secret-db",
  DATABASE_URL: "postgres://app:parent-secret-url@db.internal/prod",
  LD_PRELOAD: "/tmp/parent-secret-preload.so",
  NODE_OPTIONS: "--require /tmp/parent-secret-hook.js",
};

/** Every value above that must never reach a child. */
const SECRETS = Object.values(PARENT_ENV).filter((value) => value.includes("parent-secret"));

let workspace = "";

beforeAll(async () => {
  workspace = await realpath(await mkdtemp(path.join(tmpdir(), "lab-13-")));
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe("buildChildEnv", () => {
  it("keeps an allowlisted variable with its value", () => {
    const env = buildChildEnv(PARENT_ENV, ["LANG", "HOME"]);
    expect(env.LANG).toBe("zh_CN.UTF-8");
    expect(env.HOME).toBe("/home/dev");
  });

  it.each([
    ["LD_PRELOAD", "loads a library into every program the child starts"],
    ["NODE_OPTIONS", "makes every node the child starts require a file"],
    ["DATABASE_URL", "carries a password no name pattern can see"],
    ["EDITOR", "is harmless but was never asked for"],
  ])("drops %s, which is not on the allowlist (it %s)", (name) => {
    const env = buildChildEnv({ ...PARENT_ENV, EDITOR: "vim" }, ["PATH", "HOME", "LANG"]);
    expect(
      Object.keys(env),
      `${name} 不在白名单上，不应交给子进程；你的 buildChildEnv 给出了 ${Object.keys(env).join("、")}`,
    ).not.toContain(name);
  });

  it("gives exactly the allowlisted variables the parent has, and nothing else", () => {
    const env = buildChildEnv(PARENT_ENV, DEFAULT_ENV_ALLOWLIST);
    expect(
      env,
      `子进程环境应当正好是 PATH、HOME、LANG；你的 buildChildEnv 给出了 ${Object.keys(env).join("、")}`,
    ).toEqual({ PATH: PARENT_ENV.PATH, HOME: "/home/dev", LANG: "zh_CN.UTF-8" });
  });

  it.each([
    ["OPENAI_API_KEY"],
    ["GITHUB_TOKEN"],
    ["AWS_SECRET_ACCESS_KEY"],
    ["DB_PASSWORD"],
    ["NPM_AUTH"],
    ["SESSION_COOKIE"],
    ["github_token"],
  ])("refuses %s even when the allowlist names it", (name) => {
    const env = buildChildEnv({ ...PARENT_ENV, [name]: "parent-secret-x" }, ["PATH", name]);
    expect(
      Object.keys(env),
      `${name} 像密钥，即使在白名单上也不应交给子进程；你的 buildChildEnv 给出了 ${Object.keys(env).join("、")}`,
    ).toEqual(["PATH"]);
  });

  it("skips an allowlisted name the parent does not have", () => {
    expect(buildChildEnv({ PATH: "/usr/bin" }, ["PATH", "TZ"])).toEqual({ PATH: "/usr/bin" });
  });

  it("never takes a name inherited from the prototype (constructor, toString, hasOwnProperty)", () => {
    const env = buildChildEnv({ PATH: "/usr/bin" }, [
      "PATH",
      "constructor",
      "toString",
      "hasOwnProperty",
    ]);
    expect(
      Object.keys(env),
      `原型上的函数不是环境变量；你的 buildChildEnv 给出了 ${Object.keys(env).join("、")}`,
    ).toEqual(["PATH"]);
  });

  it("returns a new object and leaves the parent unchanged", () => {
    const parent = { ...PARENT_ENV };
    const env = buildChildEnv(parent, ["PATH"]);
    env.PATH = "/changed";
    expect(parent).toEqual(PARENT_ENV);
  });
});

describe("the policy around a real child process", () => {
  const policy = () =>
    createPolicy({
      workspace: createWorkspace(workspace),
      allowCommands: ["env", "pwd"],
      env: PARENT_ENV,
      // A user allowlisted a token by mistake: the name check still keeps it out.
      allowEnv: ["GITHUB_TOKEN"],
    });

  /** Runs an allowed program as the policy says: its absolute path, its cwd, its env. */
  const runAllowed = async (name: string) => {
    const { cwd, env, resolveProgram } = policy();
    const program = await resolveProgram(name);
    if (!program.ok) throw new Error(program.reason);
    return runProcess({
      argv: [program.path],
      cwd,
      env,
      timeoutMs: 10_000,
      maxOutputBytes: 100_000,
    });
  };

  it("env run as a child shows none of the parent's secrets", async () => {
    const result = await runAllowed("env");
    expect(result.exitCode).toBe(0);
    expect(result.stdout, "子进程应当看得到白名单上的变量").toContain("LANG=zh_CN.UTF-8");
    const leaked = SECRETS.filter((secret) => result.stdout.includes(secret));
    expect(leaked, `子进程的 env 输出里出现了父进程的密钥：${leaked.join("、")}`).toEqual([]);
  });

  it("resolves an allowed program by name to an absolute path on PATH", async () => {
    const program = await policy().resolveProgram("env");
    expect(program).toMatchObject({ ok: true, allowed: true });
    expect(program.ok && path.isAbsolute(program.path)).toBe(true);
  });

  it.each([
    ["a relative path climbing out", "../bin/env"],
    ["a path into the workspace", "./env"],
    ["an absolute path", "/usr/bin/env"],
    ["a Windows-style path", "..\\bin\\env"],
    ["a name with a NUL byte", "env\0"],
  ])("refuses %s instead of resolving it", async (_case, name) => {
    expect(await policy().resolveProgram(name), `${JSON.stringify(name)} 应被拒绝`).toMatchObject({
      ok: false,
    });
  });

  it("runs every command in the workspace root", async () => {
    const result = await runAllowed("pwd");
    expect(result.stdout.trim()).toBe(workspace);
  });
});

describe("run_command with the policy inside runAgent", () => {
  const tools = () => {
    const runCommand = createRunCommand({
      policy: createPolicy({
        workspace: createWorkspace(workspace),
        allowCommands: ["env"],
        env: PARENT_ENV,
      }),
      sandbox: { kind: "none" },
      approval: "auto",
    });
    return {
      run_command: defineTool({
        inputSchema: RunCommandInputSchema,
        execute: (input, signal) => runCommand(input, signal),
      }),
    };
  };
  const runEnv = (argv: string[]) =>
    runAgent(
      "看看环境变量",
      createScriptedProvider([
        { action: { type: "tool_call", tool: "run_command", input: { argv }, callId: "c1" } },
        { action: { type: "finish", summary: "看完了" } },
      ]),
      tools(),
      { maxSteps: 5 },
      undefined,
      // The redactor is a second wall; it is off here so this test sees the first one alone.
      { redact: (text) => text },
    );

  it("a model that runs env sees no secret in its observation", async () => {
    const result = await runEnv(["env"]);
    expect(result.status).toBe("completed");
    const observation = result.messages.find((message) => message.role === "tool");
    expect(observation).toMatchObject({ ok: true });
    const text = JSON.stringify(observation);
    expect(text, "观察里应当有白名单上的变量").toContain("LANG=zh_CN.UTF-8");
    const leaked = SECRETS.filter((secret) => text.includes(secret));
    expect(leaked, `模型看到了父进程的密钥：${leaked.join("、")}`).toEqual([]);
  });

  it("a model that asks for ../bin/env gets not_allowed, and the run goes on", async () => {
    const result = await runEnv(["../bin/env"]);
    expect(result.status).toBe("completed");
    expect(result.toolCalls).toBe(1);
    expect(result.messages.find((message) => message.role === "tool")).toMatchObject({
      ok: false,
      error: { code: "not_allowed" },
    });
  });
});
