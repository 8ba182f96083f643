import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startFakeModelServer } from "@coding-agent/providers/testing";
import { describe, expect, it } from "vitest";
import { compareWithLog } from "../src/replay/divergence.ts";
import type { StateEvent } from "../src/state/log.ts";
import { call, captureCli } from "./support/run-cli.ts";
import { BUGGY, FIXED, sha256, useSumRepoAndHome } from "./support/sum-repo.ts";

// Real files and test processes: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 120_000 };

let base: string;
let workspace: string;
let home: string;
useSumRepoAndHome((made) => {
  ({ base, workspace, home } = made);
});

const finish = (summary = "修好了") => ({ action: { type: "finish", summary } });
const fix = call("edit_file", { path: "src/sum.js", old: "return a - b;", new: "return a + b;" });
const env = () => ({ CODING_AGENT_HOME: home, PATH: process.env.PATH });
const cli = (argv: string[], more: Record<string, string> = {}) =>
  captureCli(argv, { ...env(), ...more });

/** `coding-agent run <goal> --script <turns> --workspace <repo> --json <flags>`. */
async function run(turns: unknown[], flags: string[], goal = "修复 sum") {
  const script = join(base, "script.json");
  await writeFile(script, JSON.stringify(turns));
  return cli(["run", goal, "--script", script, "--workspace", workspace, "--json", ...flags]);
}

const stateFile = (runId: string) => join(home, "runs", runId, "state.jsonl");
const AUTO = ["--approval", "auto", "--sandbox", "none"];

/** What a replay must give back as the original had it (the contract's fields). */
function outcome(result: Record<string, unknown>) {
  const { status, code, steps, toolCalls, messages, usage, costUsd } = result;
  return { status, code, steps, toolCalls, messages, usage, costUsd };
}

/** Replays `original` by run id and by file; both give its result and its exit code. */
async function expectSameReplay(original: Awaited<ReturnType<typeof cli>>) {
  expect(original.result?.runId).toBeDefined();
  const byId = await cli(["replay", original.result.runId, "--json"]);
  expect(byId.stderr).not.toContain("replay_diverged");
  expect(outcome(byId.result)).toEqual(outcome(original.result));
  expect(byId.code).toBe(original.code);
  const byFile = await cli(["replay", stateFile(original.result.runId), "--json"]);
  expect(outcome(byFile.result)).toEqual(outcome(original.result));
  expect(byFile.code).toBe(original.code);
}

/** Rewrites the run's state log line by line (`edit` returns the new line, or null to drop it). */
async function tamper(runId: string, edit: (event: Record<string, unknown>) => unknown) {
  const lines = (await readFile(stateFile(runId), "utf8")).trimEnd().split("\n");
  const kept = lines
    .map((line) => edit(JSON.parse(line)))
    .filter((event) => event !== null)
    .map((event) => JSON.stringify(event));
  await writeFile(stateFile(runId), `${kept.join("\n")}\n`);
}

describe("coding-agent replay: the week 1–5 checkpoint scenarios, run by the CLI", () => {
  it("week 1: echo hello, then finish", HANG_GUARD, async () => {
    const original = await run(
      [call("echo", { text: "hello" }), finish("说了 hello")],
      ["--max-steps", "4", "--max-repeated-actions", "1", "--finish-gate", "none"],
      "用 echo 工具说 hello，然后结束",
    );
    expect(original.result.status).toBe("completed");
    await expectSameReplay(original);
  });

  it(
    "week 2: a wrong input, read back as invalid_input, then corrected (fake model)",
    HANG_GUARD,
    async () => {
      const original = await run(
        [call("echo", { text: 42 }), call("echo", { text: "hello" }), finish("已用 echo 说 hello")],
        ["--max-steps", "5", "--max-tool-errors", "2"],
      );
      expect(original.result.messages.some((m: { ok?: boolean }) => m.ok === false)).toBe(true);
      await expectSameReplay(original);
    },
  );

  it(
    "week 2: the same conversation over HTTP; the replay needs no key and no server (a dead port)",
    HANG_GUARD,
    async () => {
      const server = await startFakeModelServer({
        apiKey: "sk-replay-loopback-key",
        script: [
          { calls: [{ name: "echo", input: { text: 42 } }] },
          { calls: [{ name: "echo", input: { text: "hello" } }] },
          { text: "已用 echo 说 hello" },
        ],
      });
      const argv = [
        "run",
        "用 echo 工具说 hello，然后结束",
        "--provider",
        "openai",
        "--model",
        "gpt-4.1-mini",
        "--base-url",
        server.openaiBaseUrl,
        "--workspace",
        workspace,
        "--finish-gate",
        "none",
        "--max-tool-errors",
        "2",
        "--json",
      ];
      const original = await cli(argv, { OPENAI_API_KEY: "sk-replay-loopback-key" });
      await server.close();
      expect(original.result).toMatchObject({ status: "completed" });
      // Priced from the built-in table: the replay counts the same cost.
      expect(original.result.costUsd).toBeGreaterThan(0);
      const served = server.requests.length;
      await expectSameReplay(original);
      expect(server.requests.length).toBe(served);
    },
  );

  it(
    "week 3: look around, run node, try to leave, then a command refused under --approval deny (exit 4)",
    HANG_GUARD,
    async () => {
      await writeFile(join(workspace, "README.md"), "# 示例\n");
      const original = await run(
        [
          call("list_files", {}),
          call("read_file", { path: "README.md" }),
          call("run_command", { argv: ["node", "--version"] }),
          call("read_file", { path: "../outside.js" }),
          call("run_command", { argv: ["touch", "blocked.txt"] }),
          finish("不应到达"),
        ],
        [
          "--allow-command",
          "node",
          "--approval",
          "deny",
          "--sandbox",
          "none",
          "--finish-gate",
          "none",
        ],
      );
      expect(original.code).toBe(4);
      await expectSameReplay(original);
      expect(await readdir(workspace)).not.toContain("blocked.txt");
    },
  );

  it("week 4: fix the failing test through the finish gate", HANG_GUARD, async () => {
    const original = await run(
      [
        call("run_tests", {}),
        call("read_file", { path: "src/sum.js" }),
        call("edit_file", {
          path: "src/sum.js",
          old: "return a - b;",
          new: "return a + b;",
          expectedHash: sha256(BUGGY),
        }),
        call("run_tests", {}),
        finish("sum 改为相加，测试全部通过"),
      ],
      ["--test-command", "node --test", ...AUTO],
    );
    expect(original.result.status).toBe("completed");
    await expectSameReplay(original);
  });

  it(
    "week 4: a two-file apply_edits whose second edit fails, then a script that runs out",
    HANG_GUARD,
    async () => {
      const original = await run(
        [
          call("apply_edits", {
            edits: [
              { path: "src/sum.js", old: "return a - b;", new: "return a + b;" },
              { path: "test/sum.test.js", old: "not in the file", new: "x" },
            ],
          }),
          finish("不应只改了一半"),
        ],
        ["--test-command", "node --test", ...AUTO],
      );
      // The gate rejects the finish; the script then has no turn left: provider_error.
      expect(original.result).toMatchObject({ status: "failed", code: "provider_error" });
      await expectSameReplay(original);
    },
  );

  it(
    "week 5: finishes rejected for no tests, failing tests, stale tests, then accepted",
    HANG_GUARD,
    async () => {
      const original = await run(
        [finish(), call("run_tests", {}), finish(), fix, finish(), call("run_tests", {}), finish()],
        ["--test-command", "node --test", "--max-finish-rejections", "4", ...AUTO],
      );
      expect(original.result.status).toBe("completed");
      await expectSameReplay(original);
    },
  );

  it(
    "week 5: a loop of two reads with nothing new stops loop_detected (exit 3)",
    HANG_GUARD,
    async () => {
      const loop = Array.from({ length: 10 }, (_, index) =>
        index % 2 === 0 ? call("read_file", { path: "src/sum.js" }) : call("list_files", {}),
      );
      const original = await run(loop, ["--finish-gate", "none", ...AUTO]);
      expect(original.result).toMatchObject({ code: "loop_detected" });
      await expectSameReplay(original);
    },
  );

  it(
    "week 5: a run crashed after its edit and resumed replays to the resumed run's result",
    HANG_GUARD,
    async () => {
      const turns = [fix, call("run_tests", {}), finish()];
      const first = await run(turns, ["--test-command", "node --test", ...AUTO]);
      const runId = first.result.runId;
      // A crash right after the edit's intent: its result and everything after are lost.
      let intents = 0;
      const lines = (await readFile(stateFile(runId), "utf8")).trimEnd().split("\n");
      const kept = lines.filter((line) => {
        const type = JSON.parse(line).type;
        if (type === "tool_intent") intents += 1;
        return intents < 1 || (intents === 1 && type === "tool_intent");
      });
      await writeFile(stateFile(runId), `${kept.join("\n")}\n`);
      await writeFile(join(workspace, "src/sum.js"), BUGGY);
      const resumed = await cli(["resume", runId, "--json"]);
      expect(resumed.result.status).toBe("completed");
      const log = await readFile(stateFile(runId), "utf8");
      expect(log).toContain('"type":"resumed"');
      await expectSameReplay(resumed);
    },
  );

  it(
    "week 5: a loopback-API run under a context budget, its results compacted",
    HANG_GUARD,
    async () => {
      const big = {
        name: "run_command",
        input: {
          argv: [
            "node",
            "-e",
            'process.stdout.write("output line lorem ipsum 12345\\n".repeat(4500))',
          ],
        },
      };
      const server = await startFakeModelServer({
        apiKey: "local-key",
        script: [
          { calls: [big] },
          { calls: [{ name: "read_file", input: { path: "src/sum.js" } }] },
          { calls: [big] },
          { calls: [big] },
          { text: "看完了三次大输出" },
        ],
      });
      const original = await cli(
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
          workspace,
          "--allow-command",
          "node",
          ...AUTO,
          "--finish-gate",
          "none",
          "--max-observation-chars",
          "2000",
          "--max-context-tokens",
          "6000",
          "--json",
        ],
        { OPENAI_API_KEY: "local-key" },
      );
      await server.close();
      expect(original.result.status).toBe("completed");
      await expectSameReplay(original);
    },
  );
});

describe("coding-agent replay of a reply whose calls ran together", () => {
  it(
    "answers each read from the log although the intents come before the results",
    HANG_GUARD,
    async () => {
      const read = (path: string) => ({ type: "tool_call", tool: "read_file", input: { path } });
      const original = await run(
        [{ actions: [read("src/sum.js"), read("test/sum.test.js")] }, finish("读完了")],
        ["--finish-gate", "none"],
      );
      expect(original.result.status).toBe("completed");
      const types = (await readFile(stateFile(original.result.runId), "utf8"))
        .trimEnd()
        .split("\n")
        .map((line) => (JSON.parse(line) as StateEvent).type);
      // Both reads started before the first was recorded: the log has both intents first.
      expect(types.slice(2, 6)).toEqual([
        "tool_intent",
        "tool_intent",
        "tool_result",
        "tool_result",
      ]);
      await expectSameReplay(original);
    },
  );
});

describe("coding-agent replay runs nothing", () => {
  it(
    "does not write a file a replayed write_file wrote, nor run a replayed command",
    HANG_GUARD,
    async () => {
      const marker = join(base, "ran.txt");
      const original = await run(
        [
          call("write_file", { path: "notes.txt", content: "第一版\n" }),
          call("run_command", {
            argv: ["node", "-e", `require('fs').appendFileSync(${JSON.stringify(marker)}, 'x')`],
          }),
          finish(),
        ],
        ["--allow-command", "node", "--finish-gate", "none", ...AUTO],
      );
      expect(original.result.status).toBe("completed");
      await writeFile(join(workspace, "notes.txt"), "用户后来改的\n");
      await rm(marker);
      await expectSameReplay(original);
      expect(await readFile(join(workspace, "notes.txt"), "utf8")).toBe("用户后来改的\n");
      await expect(readFile(marker)).rejects.toThrow();
    },
  );

  it(
    "works after the workspace is gone, and adds no run to coding-agent runs",
    HANG_GUARD,
    async () => {
      const original = await run([fix, finish()], ["--finish-gate", "none", ...AUTO]);
      await rm(workspace, { recursive: true, force: true });
      const before = (await cli(["runs", "--json"])).stdout;
      await expectSameReplay(original);
      expect((await cli(["runs", "--json"])).stdout).toBe(before);
      expect(await readdir(join(home, "runs"))).toEqual([original.result.runId]);
    },
  );
});

describe("coding-agent replay of a log that does not match", () => {
  const script = [call("read_file", { path: "src/sum.js" }), fix, call("run_tests", {}), finish()];
  const flags = ["--test-command", "node --test", ...AUTO];

  it("names the seq of a tool intent whose input was changed (exit 1)", HANG_GUARD, async () => {
    const original = await run(script, flags);
    let seq = 0;
    await tamper(original.result.runId, (event) => {
      if (event.type === "tool_intent" && event.tool === "edit_file") {
        seq = event.seq as number;
        return { ...event, input: { ...(event.input as object), new: "return a * b;" } };
      }
      return event;
    });
    const replay = await cli(["replay", original.result.runId, "--json"]);
    expect(replay.code).toBe(1);
    expect(replay.result).toMatchObject({ status: "failed", code: "replay_diverged" });
    expect(replay.result.reason).toContain(`seq ${seq} `);
  });

  it(
    "names the seq where a changed reply leads today's runtime elsewhere",
    HANG_GUARD,
    async () => {
      const original = await run(script, flags);
      let seq = 0;
      await tamper(original.result.runId, (event) => {
        // The second reply now reads another file: the recorded intent (the edit) no longer matches.
        if (event.type === "model_reply" && event.step === 2) {
          return {
            ...event,
            actions: [
              {
                type: "tool_call",
                tool: "read_file",
                input: { path: "package.json" },
                callId: "call_2",
              },
            ],
          };
        }
        if (event.type === "tool_intent" && event.step === 2) seq = event.seq as number;
        return event;
      });
      const replay = await cli(["replay", original.result.runId, "--json"]);
      expect(replay.result.code).toBe("replay_diverged");
      expect(replay.result.reason).toContain(`seq ${seq} `);
      expect(replay.result.reason).toContain("read_file");
    },
  );

  it(
    "names run_finished's seq when the recorded end differs from today's",
    HANG_GUARD,
    async () => {
      const original = await run(script, flags);
      let seq = 0;
      await tamper(original.result.runId, (event) => {
        if (event.type !== "run_finished") return event;
        seq = event.seq as number;
        return { ...event, steps: 3 };
      });
      const replay = await cli(["replay", original.result.runId, "--json"]);
      expect(replay.result.code).toBe("replay_diverged");
      expect(replay.result.reason).toContain(`seq ${seq} `);
      expect(replay.result.reason).toContain("steps 记录为 3，重放为 4");
    },
  );

  it(
    "names the seq of a tool call whose result line was removed and the rest renumbered",
    HANG_GUARD,
    async () => {
      const original = await run(script, flags);
      let removed = 0;
      let n = 0;
      await tamper(original.result.runId, (event) => {
        if (event.type === "tool_result" && removed === 0) {
          removed = event.seq as number;
          return null;
        }
        n += 1;
        return { ...event, seq: n };
      });
      const replay = await cli(["replay", original.result.runId, "--json"]);
      expect(replay.result.code).toBe("replay_diverged");
      // The line now at the removed result's seq is the next reply, where a result was due.
      expect(replay.result.reason).toContain(`seq ${removed} `);
    },
  );

  it(
    "replays a run whose tool threw: the call counted, the run failed tool_error, as recorded",
    HANG_GUARD,
    async () => {
      const original = await run(
        [call("echo", { text: "一" }), call("echo", { text: "二" }), finish()],
        ["--finish-gate", "none"],
      );
      // What the log of a tool that threw looks like: its intent, no result, the run's end.
      let results = 0;
      let n = 0;
      const reason = "工具 echo 失败：磁盘坏了";
      await tamper(original.result.runId, (event) => {
        if (event.type === "tool_result") results += 1;
        if (event.type === "tool_result" && results === 2) return null;
        if (event.type === "model_reply" && event.step === 3) return null;
        n += 1;
        if (event.type === "run_finished") {
          return {
            ...event,
            seq: n,
            status: "failed",
            code: "tool_error",
            reason,
            steps: 2,
            toolCalls: 2,
          };
        }
        return { ...event, seq: n };
      });
      const replay = await cli(["replay", original.result.runId, "--json"]);
      expect(replay.result).toMatchObject({
        status: "failed",
        code: "tool_error",
        reason,
        steps: 2,
        toolCalls: 2,
      });
      expect(replay.code).toBe(1);
    },
  );

  it(
    "refuses a log with a removed line (a gap in seq) or a broken line, exit 2",
    HANG_GUARD,
    async () => {
      const original = await run(script, flags);
      const runId = original.result.runId;
      const text = await readFile(stateFile(runId), "utf8");
      await tamper(runId, (event) => (event.type === "tool_result" ? null : event));
      const gap = await cli(["replay", runId, "--json"]);
      expect(gap.code).toBe(2);
      expect(gap.stderr).toContain("seq 应为");
      await writeFile(
        stateFile(runId),
        text.replace('"type":"tool_intent"', '"type":"tool_intnet"'),
      );
      const broken = await cli(["replay", runId, "--json"]);
      expect(broken.code).toBe(2);
      expect(broken.stderr).toContain("不是有效的状态事件");
    },
  );

  it(
    "refuses an unfinished run (a crash, or a torn last line), naming resume, exit 2",
    HANG_GUARD,
    async () => {
      const original = await run(script, flags);
      const runId = original.result.runId;
      const text = await readFile(stateFile(runId), "utf8");
      // The run_finished line torn by a crash mid-write: dropped, and the run has no end.
      await writeFile(stateFile(runId), text.slice(0, text.length - 20));
      const torn = await cli(["replay", runId, "--json"]);
      expect(torn.code).toBe(2);
      expect(torn.stderr).toContain("最后一行不完整");
      expect(torn.stderr).toContain(`coding-agent resume ${runId}`);
      expect(torn.stdout).toBe("");
    },
  );

  it(
    "refuses a log with lines after run_finished, and a run id or file that does not exist",
    HANG_GUARD,
    async () => {
      const original = await run(script, flags);
      const runId = original.result.runId;
      const text = await readFile(stateFile(runId), "utf8");
      const extra = JSON.stringify({
        seq: text.trimEnd().split("\n").length + 1,
        type: "resumed",
        at: "x",
        fromSeq: 1,
      });
      await writeFile(stateFile(runId), `${text}${extra}\n`);
      expect((await cli(["replay", runId])).code).toBe(2);
      expect((await cli(["replay", "20990101-000000Z-000000"])).code).toBe(2);
      expect((await cli(["replay", join(base, "nope.jsonl")])).code).toBe(2);
      expect((await cli(["replay"])).code).toBe(2);
    },
  );

  it("keeps the file it replays unchanged", HANG_GUARD, async () => {
    const original = await run([fix, finish()], ["--finish-gate", "none", ...AUTO]);
    const before = await readFile(stateFile(original.result.runId), "utf8");
    await cli(["replay", original.result.runId]);
    expect(await readFile(stateFile(original.result.runId), "utf8")).toBe(before);
    expect(await readFile(join(workspace, "src/sum.js"), "utf8")).toBe(FIXED);
  });
});

describe("coding-agent replay and cost", () => {
  const usage = { inputTokens: 1_000_000, outputTokens: 500_000 };
  const priced = (turn: object) => ({ ...turn, usage });
  const turns = [
    priced(call("read_file", { path: "src/sum.js" })),
    priced(call("list_files", {})),
    priced(call("read_file", { path: "package.json" })),
    priced(finish()),
  ];
  async function pricedRun(flags: string[]) {
    const pricing = join(base, "pricing.json");
    await writeFile(pricing, JSON.stringify({ fake: { inputPerMTok: 1, outputPerMTok: 2 } }));
    return run(turns, ["--pricing", pricing, "--finish-gate", "none", ...AUTO, ...flags]);
  }

  it(
    "replays a cost stop with the recorded price, even once the pricing file is gone",
    HANG_GUARD,
    async () => {
      const original = await pricedRun(["--max-cost-usd", "4"]);
      expect(original.result).toMatchObject({ code: "max_cost", costUsd: 4 });
      await rm(join(base, "pricing.json"));
      await expectSameReplay(original);
    },
  );

  it(
    "diverges where a cost budget lowered in the log stops today's runtime earlier",
    HANG_GUARD,
    async () => {
      const original = await pricedRun([]);
      expect(original.result).toMatchObject({ status: "completed", costUsd: 8 });
      let seq = 0;
      await tamper(original.result.runId, (event) => {
        if (event.type === "run_started") {
          return { ...event, options: { ...(event.options as object), maxCostUsd: 2 } };
        }
        if (event.type === "model_reply" && event.step === 2) seq = event.seq as number;
        return event;
      });
      const replay = await cli(["replay", original.result.runId, "--json"]);
      expect(replay.code).toBe(1);
      expect(replay.result).toMatchObject({ code: "replay_diverged", steps: 1 });
      expect(replay.result.reason).toContain(`seq ${seq} `);
      expect(replay.result.reason).toContain("max_cost");
    },
  );

  it(
    "refuses recorded options that make no run (exit 2), without a crash",
    HANG_GUARD,
    async () => {
      const original = await pricedRun([]);
      await tamper(original.result.runId, (event) =>
        event.type === "run_started" ? { ...event, options: { goal: "x" } } : event,
      );
      const replay = await cli(["replay", original.result.runId, "--json"]);
      expect(replay.code).toBe(2);
      expect(replay.stderr).toContain("run_started.options 无效");
    },
  );
});

describe("compareWithLog", () => {
  const reply = (seq: number, step: number) =>
    ({ seq, type: "model_reply", step, actions: [] }) as StateEvent;
  const intent = (seq: number, tool: string, input: Record<string, unknown>) =>
    ({ seq, type: "tool_intent", step: 1, callId: "call_1", tool, input, key: "k" }) as StateEvent;
  const done = (seq: number, steps: number) =>
    ({
      seq,
      type: "run_finished",
      status: "completed",
      code: "finished",
      steps,
      toolCalls: 1,
    }) as StateEvent;

  it("takes a model call only on the reply of its own step", () => {
    expect(compareWithLog({ kind: "model_call", step: 2 }, reply(4, 2))).toEqual({ kind: "same" });
    expect(compareWithLog({ kind: "model_call", step: 2 }, reply(4, 3))).toMatchObject({
      kind: "diverged",
      seq: 4,
    });
    expect(compareWithLog({ kind: "model_call", step: 2 }, undefined)).toMatchObject({
      kind: "diverged",
      seq: undefined,
    });
  });

  it("takes a tool call only on an intent of the same id, tool and input, key order aside", () => {
    const move = {
      kind: "tool_call",
      callId: "call_1",
      tool: "read_file",
      input: { b: 1, a: 2 },
    } as const;
    expect(compareWithLog(move, intent(3, "read_file", { a: 2, b: 1 }))).toEqual({ kind: "same" });
    expect(compareWithLog(move, intent(3, "read_file", { a: 2, b: 2 }))).toMatchObject({
      kind: "diverged",
      seq: 3,
    });
    expect(compareWithLog(move, intent(3, "list_files", { a: 2, b: 1 }))).toMatchObject({
      kind: "diverged",
      seq: 3,
    });
  });

  it("takes the end only on a run_finished with the same status, code, steps and tool calls", () => {
    const move = {
      kind: "end",
      status: "completed",
      code: "finished",
      steps: 2,
      toolCalls: 1,
    } as const;
    expect(compareWithLog(move, done(9, 2))).toEqual({ kind: "same" });
    const verdict = compareWithLog(move, done(9, 3));
    expect(verdict).toMatchObject({ kind: "diverged", seq: 9 });
    expect(verdict.kind === "diverged" && verdict.what).toBe("steps 记录为 3，重放为 2");
    expect(compareWithLog(move, reply(9, 3))).toMatchObject({ kind: "diverged", seq: 9 });
  });
});
