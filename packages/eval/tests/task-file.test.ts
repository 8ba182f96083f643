import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  loadSuite,
  type ReservedFlagCheck,
  type RunArgsValidator,
  reservedFlagIn,
} from "../src/index.ts";
import { scratch, writeTask } from "./support/suite.ts";

const valid = { id: "t1", goal: "修好它", repo: "repo", testCommand: "node --test" };
const acceptAll: RunArgsValidator = () => undefined;

async function loadOne(json: unknown, validate = acceptAll, reserved?: ReservedFlagCheck) {
  const suite = await scratch();
  const file = await writeTask(suite, "t1", json);
  return { file, result: await loadSuite(suite, validate, reserved) };
}

describe("loadSuite", () => {
  it("loads a task with its fixture's files and the defaults", async () => {
    const { result } = await loadOne(valid);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.suite.tasks).toHaveLength(1);
    expect(result.suite.tasks[0]).toMatchObject({
      id: "t1",
      allowPaths: [],
      forbiddenPaths: [],
      args: [],
      expectStatus: "completed",
      files: [{ path: "a.txt", base64: Buffer.from("a\n").toString("base64"), executable: false }],
    });
  });

  it.each([
    ["testCommand", { ...valid, testCommand: undefined }],
    ["timeoutMs", { ...valid, timeoutMs: -5 }],
    ["expect.status", { ...valid, expect: { status: "great" } }],
    ["forbiddenPaths[0]", { ...valid, forbiddenPaths: [""] }],
    ["repo", { ...valid, repo: "/etc" }],
  ])("names the file and the field %s when it is wrong", async (field, json) => {
    const { file, result } = await loadOne(json);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain(file);
    expect(result.message).toContain(field);
  });

  it("refuses an unknown field, an id other than the folder's and a missing fixture", async () => {
    for (const [json, field] of [
      [{ ...valid, tests: "x" }, "tests"],
      [{ ...valid, id: "t2" }, "id"],
      [{ ...valid, repo: "nowhere" }, "repo"],
    ] as const) {
      const { file, result } = await loadOne(json);
      expect(result.ok, field).toBe(false);
      if (!result.ok) expect(result.message).toContain(file);
      if (!result.ok) expect(result.message).toContain(field);
    }
  });

  it("refuses a fixture outside the task's folder, by ../ or by a symbolic link, naming repo", async () => {
    const suite = await scratch();
    const outside = await mkdtemp(path.join(tmpdir(), "outside-fixture-"));
    await writeFile(path.join(outside, "secret.txt"), "not yours\n");
    const up = path.relative(path.join(suite, "t1"), outside);
    const byDots = await writeTask(suite, "t1", { ...valid, repo: up });
    const dots = await loadSuite(suite, acceptAll);
    expect(dots.ok).toBe(false);
    if (!dots.ok) expect(dots.message).toContain(`${byDots} 无效：repo: 夹具目录必须在任务目录里`);
    await writeTask(suite, "t1", { ...valid, repo: "linked" });
    await symlink(outside, path.join(suite, "t1", "linked"));
    const linked = await loadSuite(suite, acceptAll);
    expect(linked.ok).toBe(false);
    if (!linked.ok) expect(linked.message).toContain("repo: 夹具目录必须在任务目录里：linked");
    await rm(outside, { recursive: true, force: true });
  });

  it("validates a script file beside task.json with the fake model's schema", async () => {
    const suite = await scratch();
    const file = await writeTask(suite, "t1", { ...valid, script: "turns.json" });
    await writeFile(
      path.join(suite, "t1", "turns.json"),
      JSON.stringify([{ delayMs: -1, error: "x" }]),
    );
    const result = await loadSuite(suite, acceptAll);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toContain(file);
      expect(result.message).toContain("script");
      expect(result.message).toContain("delayMs");
    }

    await writeFile(
      path.join(suite, "t1", "turns.json"),
      JSON.stringify([{ action: { type: "finish", summary: "好" } }]),
    );
    const fixed = await loadSuite(suite, acceptAll);
    expect(fixed.ok && fixed.suite.tasks[0]?.script).toEqual([
      { action: { type: "finish", summary: "好" } },
    ]);
  });

  it("refuses a script file outside the task's folder", async () => {
    const { result } = await loadOne({ ...valid, script: "../../etc/passwd" });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain("script");
  });

  it("checks args with the given validator and refuses the flags the harness sets", async () => {
    const { result } = await loadOne(
      { ...valid, args: ["--max-steps", "x"] },
      () => "--max-steps 需要非负整数",
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/args: --max-steps 需要非负整数/);
    for (const flag of ["--workspace=/", "--json", "--script", "--test-command", "--run-id=x"]) {
      const reserved = await loadOne({ ...valid, args: [flag] });
      expect(reserved.result.ok, flag).toBe(false);
      if (!reserved.result.ok) expect(reserved.result.message).toContain(flag);
    }
  });

  it("refuses the flags the harness sets with the given check, which decides alone", async () => {
    expect(reservedFlagIn(["--model", "json", "--max-steps", "3"])).toBeUndefined();
    expect(reservedFlagIn(["--model", "m", "--workspace=/tmp/x"])).toBe("--workspace=/tmp/x");
    const refused = await loadOne({ ...valid, args: ["--max-steps", "3"] }, acceptAll, (args) =>
      args.find((arg) => arg === "3"),
    );
    expect(refused.result.ok).toBe(false);
    if (!refused.result.ok)
      expect(refused.result.message).toBe(
        `任务文件 ${refused.file} 无效：args: 3 由评测框架设置，任务不能给`,
      );
    const allowed = await loadOne({ ...valid, args: ["--json"] }, acceptAll, () => undefined);
    expect(allowed.result.ok).toBe(true);
  });

  it("says so when the suite has no task and when a task file is not JSON", async () => {
    const empty = await loadSuite(await scratch(), acceptAll);
    expect(empty.ok).toBe(false);
    const { file, result } = await loadOne("{ not json");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain(file);
  });
});
