/**
 * Output over the observation budget is kept, not thrown away (docs/contracts.md, lesson 25):
 * with or without `--max-context-tokens`, a command's whole output is stored, redacted, as
 * an artifact in the run folder, the observation names it and how to read it, and
 * `read_artifact` reads it back — offered to the model once an artifact exists.
 */
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAgent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { describe, expect, it } from "vitest";
import { parseCliArgs, type RunCommand } from "../src/args.ts";
import { prepareRunFeatures } from "../src/run-extensions.ts";
import { call, captureCli, finish } from "./support/run-cli.ts";

const SECRET = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789";
/** 600 lines, a secret in the middle: what a failing test suite prints. */
const PAD = ".".repeat(40);
const PROGRAM = `for (let i = 1; i <= 600; i++) console.log("line " + i + " ${PAD}" + (i === 300 ? " key ${SECRET}" : ""))`;

async function runScript(turns: unknown[]) {
  const base = await mkdtemp(join(tmpdir(), "coding-agent-artifacts-"));
  const script = join(base, "script.json");
  await writeFile(script, JSON.stringify(turns));
  return captureCli([
    "run",
    "看输出",
    "--workspace",
    base,
    "--script",
    script,
    "--allow-command",
    "node",
    "--sandbox",
    "none",
    "--finish-gate",
    "none",
    "--json",
  ]);
}

describe("a command's output over the observation budget", { timeout: 60_000 }, () => {
  it("is stored whole and redacted as an artifact the observation names, and read_artifact pages it", async () => {
    const { code, stdout, result } = await runScript([
      call("run_command", { argv: ["node", "-e", PROGRAM] }),
      call("read_artifact", { id: "call_1-1", startLine: 299, endLine: 301 }),
      finish,
    ]);
    expect(code).toBe(0);
    const [artifact] = await readdir(join(result.runDir, "artifacts"));
    expect(artifact).toBe("call_1-1.txt");
    const text = await readFile(join(result.runDir, "artifacts", artifact ?? ""), "utf8");
    expect(text.split("\n").slice(0, 600)).toEqual(
      Array.from({ length: 600 }, (_, i) =>
        i === 299 ? `line 300 ${PAD} key [REDACTED:openai-key]` : `line ${i + 1} ${PAD}`,
      ),
    );
    const [command, page] = result.messages.filter(
      (message: Record<string, unknown>) => message.role === "tool",
    );
    expect(command.content).toContain('"artifact":"call_1-1"');
    expect(command.content).toContain('read_artifact {\\"id\\":\\"call_1-1\\"');
    expect(command.content).toContain("line 600");
    expect(page).toMatchObject({ tool: "read_artifact", ok: true });
    expect(page.content).toContain("line 299");
    expect(page.content).toContain("line 301");
    expect(stdout).not.toContain(SECRET);
  });
});

describe("a failing test run's output over the observation budget", { timeout: 60_000 }, () => {
  it("is stored whole as an artifact in the run folder, and run_tests names it", async () => {
    const base = await mkdtemp(join(tmpdir(), "coding-agent-artifacts-"));
    const tests = Array.from(
      { length: 60 },
      (_, i) => `test("case ${i}", () => { throw new Error("${"reason ".repeat(60)}${i}"); });`,
    );
    await writeFile(
      join(base, "many.test.js"),
      `import test from "node:test";\n${tests.join("\n")}\n`,
    );
    const script = join(base, "script.json");
    await writeFile(script, JSON.stringify([call("run_tests", {}), finish]));
    const { result } = await captureCli([
      "run",
      "看测试",
      "--workspace",
      base,
      "--script",
      script,
      "--test-command",
      "node --test",
      "--sandbox",
      "none",
      "--finish-gate",
      "none",
      "--json",
    ]);
    const [tests_] = result.messages.filter(
      (message: Record<string, unknown>) => message.role === "tool",
    );
    expect(tests_.content).toContain('"artifact":"run_tests-1"');
    const text = await readFile(join(result.runDir, "artifacts", "run_tests-1.txt"), "utf8");
    for (let i = 0; i < 60; i++) expect(text).toContain(`case ${i}`);
  });
});

describe("read_artifact", () => {
  it("is offered to the model only once the run has an artifact", async () => {
    const dir = await mkdtemp(join(tmpdir(), "coding-agent-artifacts-"));
    const parsed = parseCliArgs(["run", "任务", "--max-observation-chars", "1000"]);
    if (!parsed.ok || parsed.command.kind !== "run") throw new Error("run 的参数应当有效");
    const features = await prepareRunFeatures({
      command: parsed.command as RunCommand,
      redact: (text) => text,
      artifactsDir: join(dir, "artifacts"),
    });
    const seen: string[][] = [];
    const big = "x\n".repeat(2_000);
    const provider = createScriptedProvider([
      { action: { type: "tool_call", tool: "echo", input: { text: "short" } } },
      { action: { type: "tool_call", tool: "echo", input: { text: big } } },
      { action: { type: "finish", summary: "好了" } },
    ]);
    const echo = { execute: (input: { text: string }) => input.text };
    await runAgent(
      "任务",
      {
        complete(request, signal) {
          seen.push(request.tools.map((tool) => tool.name));
          return provider.complete(request, signal);
        },
      },
      { echo, ...features.tools },
      { maxSteps: 5 },
      undefined,
      { extensions: features.extensions, maxObservationChars: 1_000 },
    );
    expect(seen.map((names) => names.includes("read_artifact"))).toEqual([false, false, true]);
  });
});
