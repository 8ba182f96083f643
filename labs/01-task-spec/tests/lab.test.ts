import { parseTask, parseTaskText } from "@lab";
import { describe, expect, it } from "vitest";

describe("parseTask", () => {
  it("accepts a minimal task and fills in the default budgets", () => {
    const result = parseTask({ goal: "  修复失败的单元测试  " });

    expect(result).toEqual({
      ok: true,
      task: { goal: "修复失败的单元测试", budgets: { maxSteps: 20, maxRepeatedActions: 3 } },
    });
  });

  it("reports every problem, not only the first", () => {
    const result = parseTask({
      goal: "",
      workspace: "./repo",
      budgets: { maxSteps: 0, maxRepeatedActions: "3", maxDurationMs: 1.5 },
    });

    expect(result).toEqual({
      ok: false,
      problems: [
        { path: "goal", message: "goal 不能为空" },
        { path: "budgets.maxSteps", message: "maxSteps 必须大于 0" },
        { path: "budgets.maxRepeatedActions", message: "maxRepeatedActions 必须是整数" },
        { path: "budgets.maxDurationMs", message: "maxDurationMs 必须是整数" },
      ],
    });
  });

  it("names a problem inside a list by its index", () => {
    const result = parseTask({ goal: "补充文档", constraints: ["只改 docs/", 42] });

    expect(result).toEqual({
      ok: false,
      problems: [{ path: "constraints[1]", message: "每条约束都必须是字符串" }],
    });
  });

  it("rejects a misspelt budget key instead of ignoring it", () => {
    const result = parseTask({
      goal: "修复 lint",
      budgets: { maxSteps: 8, maxRepeatedActions: 2, maxToolCall: 5 },
    });

    expect(result).toEqual({
      ok: false,
      problems: [{ path: "budgets", message: "未知字段：maxToolCall" }],
    });
  });
});

describe("parseTaskText", () => {
  it("turns text that is not JSON into a problem instead of throwing", () => {
    expect(
      () => parseTaskText('{ "goal": "修复测试", }'),
      "不是 JSON 的文本不应抛出异常",
    ).not.toThrow();
    const result = parseTaskText('{ "goal": "修复测试", }');

    expect(result.ok, "不是 JSON 的文本应得到问题列表，而不是成功").toBe(false);
    expect(result.ok ? [] : result.problems.map((problem) => problem.path)).toEqual(["(根)"]);
    expect(result.ok ? "" : result.problems[0]?.message).toMatch(/^不是合法的 JSON：/);
  });
});
