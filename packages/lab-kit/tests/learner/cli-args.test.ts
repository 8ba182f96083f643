import { describe, expect, it } from "vitest";
import { parseLessonArgs, parseLessonsArgs } from "../../src/learner/cli-args.ts";

describe("parseLessonArgs", () => {
  it("reads an action and a lesson", () => {
    expect(parseLessonArgs(["hint", "05"])).toEqual({
      ok: true,
      value: { action: "hint", lesson: "05", yes: false },
    });
  });

  it("accepts --yes for reset, also after a pnpm `--` separator", () => {
    expect(parseLessonArgs(["--", "reset", "5", "-y"])).toMatchObject({
      ok: true,
      value: { action: "reset", lesson: "5", yes: true },
    });
  });

  it("accepts --yes for diff: the learner says beforehand that they want the answer", () => {
    expect(parseLessonArgs(["diff", "05", "--yes"])).toMatchObject({
      ok: true,
      value: { action: "diff", lesson: "05", yes: true },
    });
  });

  it("rejects --yes for any other action", () => {
    expect(parseLessonArgs(["hint", "05", "--yes"])).toMatchObject({ ok: false });
  });

  it("rejects a missing lesson with the usage", () => {
    const parsed = parseLessonArgs(["watch"]);
    expect(parsed.ok === false && parsed.message).toContain("缺少课程编号");
  });

  it("rejects an unknown flag", () => {
    expect(parseLessonArgs(["hint", "05", "--force"])).toMatchObject({ ok: false });
  });

  it("rejects extra words", () => {
    expect(parseLessonArgs(["hint", "05", "06"])).toMatchObject({ ok: false });
  });
});

describe("parseLessonsArgs", () => {
  it("reads --json, and uses the cache unless --no-cache", () => {
    expect(parseLessonsArgs(["--json"])).toEqual({ ok: true, value: { json: true, cache: true } });
    expect(parseLessonsArgs(["--no-cache"])).toEqual({
      ok: true,
      value: { json: false, cache: false },
    });
  });

  it("rejects a positional argument", () => {
    expect(parseLessonsArgs(["05"])).toMatchObject({ ok: false });
  });

  it("answers help for -h", () => {
    expect(parseLessonsArgs(["-h"])).toEqual({ ok: "help" });
  });

  it("names an unknown option in Chinese, without node's English message", () => {
    const result = parseLessonsArgs(["--bogus"]);
    expect(result).toMatchObject({ ok: false });
    const message = result.ok === false ? result.message : "";
    expect(message).toContain("不认识的选项：--bogus");
    expect(message).not.toMatch(/Unknown option/);
  });
});
