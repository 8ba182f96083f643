import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  cliJson,
  failed,
  formatVerdict,
  jsonOrUndefined,
  judgeByRefusal,
  passed,
  printVerdict,
  Refusal,
  refuse,
} from "../src/index.ts";
import { CHECKPOINT_TEST_TIMEOUT_MS, defineCheckpointConfig } from "../src/vitest-config.ts";

describe("formatVerdict", () => {
  it("prints a pass as the Chinese line and the verdict's JSON, keys in order", () => {
    expect(formatVerdict(passed(3, "摘要", ["a:1", "b:2"]))).toEqual([
      "第 3 周检查点通过：摘要",
      '{"week":3,"ok":true,"summary":"摘要","evidence":["a:1","b:2"]}',
    ]);
  });

  it("prints a failure with its reason, and the evidence gathered so far in the JSON", () => {
    expect(formatVerdict(failed(7, "摘要", ["a:1"], "原因"))).toEqual([
      "第 7 周检查点未通过：原因",
      '{"week":7,"ok":false,"summary":"摘要","evidence":["a:1"],"reason":"原因"}',
    ]);
  });
});

describe("printVerdict", () => {
  const exitCode = process.exitCode;
  afterEach(() => {
    process.exitCode = exitCode;
    vi.restoreAllMocks();
  });

  it("prints the two lines and leaves the exit code alone when the verdict passed", () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    process.exitCode = undefined;
    printVerdict(passed(1, "摘要", []));
    expect(log.mock.calls).toEqual([
      ["第 1 周检查点通过：摘要"],
      ['{"week":1,"ok":true,"summary":"摘要","evidence":[]}'],
    ]);
    expect(process.exitCode).toBeUndefined();
  });

  it("sets exit code 1 when the verdict failed", () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    process.exitCode = undefined;
    printVerdict(failed(2, "摘要", [], "原因"));
    expect(log.mock.calls[0]).toEqual(["第 2 周检查点未通过：原因"]);
    expect(process.exitCode).toBe(1);
  });
});

describe("judgeByRefusal", () => {
  it("passes with the evidence the judge returns", () => {
    expect(judgeByRefusal(6, "摘要", () => ["x"])).toEqual(passed(6, "摘要", ["x"]));
  });

  it("fails with the first refusal's reason and no evidence", () => {
    const verdict = judgeByRefusal(6, "摘要", () => {
      refuse("第一个");
    });
    expect(verdict).toEqual(failed(6, "摘要", [], "第一个"));
  });

  it("throws an error that is not a refusal: a broken judge is not a verdict", () => {
    expect(() =>
      judgeByRefusal(6, "摘要", () => {
        throw new TypeError("bug");
      }),
    ).toThrow(TypeError);
  });
});

describe("cliJson", () => {
  const Schema = z.looseObject({ status: z.string() });
  const run = (stdout: string, stderr = "") => ({ exitCode: 2, stdout, stderr });
  const refusalOf = (body: () => unknown) => {
    try {
      body();
    } catch (error) {
      if (error instanceof Refusal) return error.message;
      throw error;
    }
    return "no refusal";
  };

  it("returns the checked --json output", () => {
    expect(cliJson("运行", run('{"status":"completed","extra":1}'), Schema)).toEqual({
      status: "completed",
      extra: 1,
    });
  });

  it("refuses output that is not JSON, with the exit code and the end of stderr", () => {
    const stderr = `${"x".repeat(400)}最后的错误`;
    const reason = refusalOf(() => cliJson("运行", run("用法错误", stderr), Schema));
    expect(reason).toBe(`运行：stdout 不是 JSON（退出码 2）：${stderr.slice(-300)}`);
    expect(reason.endsWith("最后的错误")).toBe(true);
  });

  it("refuses a torn JSON line", () => {
    expect(refusalOf(() => cliJson("运行", run('{"status":"compl'), Schema))).toMatch(
      /^运行：stdout 不是 JSON/,
    );
  });

  it("refuses JSON without the fields the schema reads, naming what it is", () => {
    expect(refusalOf(() => cliJson("运行", run('{"status":1}'), Schema))).toBe(
      "运行：--json 结果的字段不对",
    );
    expect(refusalOf(() => cliJson("评测", run("[]"), Schema, "报告"))).toBe(
      "评测：--json 报告的字段不对",
    );
  });
});

describe("jsonOrUndefined", () => {
  it("parses JSON and answers undefined for anything else", () => {
    expect(jsonOrUndefined('{"a":[1]}')).toEqual({ a: [1] });
    expect(jsonOrUndefined("null")).toBeNull();
    expect(jsonOrUndefined('{"a":')).toBeUndefined();
    expect(jsonOrUndefined("")).toBeUndefined();
  });
});

describe("defineCheckpointConfig", () => {
  it("runs the package's tests from the sources, with one hang guard for tests and hooks", () => {
    const config = defineCheckpointConfig("/somewhere/week-09");
    expect(config.root).toBe("/somewhere/week-09");
    expect(config.ssr?.resolve?.conditions?.[0]).toBe("@coding-agent/source");
    expect(config.test).toMatchObject({
      include: ["tests/**/*.test.ts"],
      testTimeout: CHECKPOINT_TEST_TIMEOUT_MS,
      hookTimeout: CHECKPOINT_TEST_TIMEOUT_MS,
    });
  });
});
