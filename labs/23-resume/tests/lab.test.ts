import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAgent, type ToolSet } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import {
  createResumeExtension,
  type PredictedFile,
  planResume,
  replayingProvider,
  type StateEvent,
} from "@coding-agent/cli";
import { decideInDoubt } from "@lab";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const hash = (text: string) => createHash("sha256").update(text).digest("hex");
const BEFORE = "export const sum = (a, b) => a - b;\n";
const AFTER = "export const sum = (a, b) => a + b;\n";
const edit: PredictedFile = { path: "src/sum.js", before: hash(BEFORE), after: hash(AFTER) };
const created: PredictedFile = { path: "src/new.js", before: null, after: hash("new\n") };

describe("decideInDoubt", () => {
  it("runs read-only tools and the tests again", () => {
    for (const tool of ["read_file", "list_files", "search", "run_tests"]) {
      expect(decideInDoubt(tool, undefined, []), tool).toBe("run");
    }
  });

  it("never runs a command again: it may have done its work already", () => {
    expect(decideInDoubt("run_command", undefined, []), "run_command 中断在执行期间").toBe(
      "interrupted",
    );
  });

  it("never runs a tool it does not know again either", () => {
    expect(decideInDoubt("deploy", undefined, []), "不认识的工具 deploy").toBe("interrupted");
  });

  it("records an edit whose files are all as it leaves them as applied, never writing them twice", () => {
    expect(decideInDoubt("edit_file", [edit], [hash(AFTER)]), "sum.js 已经是改之后的内容").toBe(
      "applied",
    );
    expect(
      decideInDoubt("apply_edits", [edit, created], [hash(AFTER), hash("new\n")]),
      "apply_edits 的两个文件都已写入",
    ).toBe("applied");
  });

  it("applies now an edit whose files are all as before it", () => {
    expect(decideInDoubt("edit_file", [edit], [hash(BEFORE)]), "sum.js 还是改之前的内容").toBe(
      "run",
    );
    expect(decideInDoubt("write_file", [created], [null]), "要新建的文件还不存在").toBe("run");
  });

  it("answers stale for an edit whose files are neither, or half written", () => {
    expect(
      decideInDoubt("edit_file", [edit], [hash("别人改过\n")]),
      "sum.js 被别人改成了第三种内容",
    ).toBe("stale");
    expect(decideInDoubt("edit_file", [edit], [null]), "sum.js 被删掉了").toBe("stale");
    expect(
      decideInDoubt("apply_edits", [edit, created], [hash(AFTER), null]),
      "apply_edits 只写了一个文件",
    ).toBe("stale");
  });

  it("runs again an edit with no prediction: it was refused when planned and wrote nothing", () => {
    expect(decideInDoubt("edit_file", undefined, []), "规划时就被拒绝的编辑").toBe("run");
  });

  it("runs again an edit whose prediction lists no file: there is nothing it could have written twice", () => {
    expect(decideInDoubt("apply_edits", [], []), "apply_edits 的预测里一个文件也没有").toBe("run");
  });
});

/** A log that ends with an intent and no result: the process was killed right there. */
function crashedLog(
  tool: string,
  input: Record<string, unknown>,
  files?: PredictedFile[],
): StateEvent[] {
  return [
    {
      seq: 1,
      type: "run_started",
      runId: "lab-23",
      startedAt: "2026-01-01T00:00:00.000Z",
      goal: "修复 sum",
      workspace: "ws",
      options: {},
      startVersion: "v0",
    },
    {
      seq: 2,
      type: "model_reply",
      step: 1,
      actions: [{ type: "tool_call", tool, input, callId: "call_1" }],
    },
    {
      seq: 3,
      type: "tool_intent",
      step: 1,
      callId: "call_1",
      tool,
      input,
      key: "k",
      ...(files === undefined ? {} : { files }),
    },
  ] as StateEvent[];
}

describe("decideInDoubt in a resumed run", () => {
  let workspace: string;
  beforeEach(async () => {
    workspace = await mkdtemp(join(tmpdir(), "lab-23-"));
    await writeFile(join(workspace, "sum.js"), AFTER);
  });
  afterEach(() => rm(workspace, { recursive: true, force: true }));

  async function resume(events: StateEvent[]) {
    const planned = planResume(events);
    if (!planned.ok) throw new Error("日志应当可以恢复");
    const ran: string[] = [];
    const tools: ToolSet = {
      edit_file: {
        execute: async () => {
          ran.push("edit_file");
          await writeFile(
            join(workspace, "sum.js"),
            `${await readFile(join(workspace, "sum.js"), "utf8")}// 又写了一次\n`,
          );
          return { path: "sum.js" };
        },
      },
      run_command: {
        execute: () => {
          ran.push("run_command");
          return { exitCode: 0 };
        },
      },
    };
    const provider = replayingProvider(
      planned.plan,
      createScriptedProvider([{ action: { type: "finish", summary: "好了" } }]),
    );
    const result = await runAgent("修复 sum", provider, tools, { maxSteps: 5 }, undefined, {
      extensions: [createResumeExtension(planned.plan, workspace, { decide: decideInDoubt })],
    });
    const answer = result.messages.find((message) => message.role === "tool");
    return { ran, result, answer };
  }

  it("does not write an edit twice whose file already holds what it writes", async () => {
    const { ran, answer } = await resume(
      crashedLog("edit_file", { path: "sum.js", old: "a - b", new: "a + b" }, [
        { ...edit, path: "sum.js" },
      ]),
    );
    expect(ran, "恢复时执行过的工具").toEqual([]);
    expect(answer, "模型看到的结果").toMatchObject({ ok: true });
    expect(await readFile(join(workspace, "sum.js"), "utf8"), "sum.js 只被写了一次").toBe(AFTER);
  });

  it("answers a command in doubt as interrupted and does not run it", async () => {
    const { ran, answer, result } = await resume(
      crashedLog("run_command", { argv: ["npm", "publish"] }),
    );
    expect(ran, "恢复时执行过的工具").toEqual([]);
    expect(answer, "模型看到的结果").toMatchObject({ ok: false, error: { code: "interrupted" } });
    expect(result.status, "运行继续并完成").toBe("completed");
  });
});
