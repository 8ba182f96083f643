import { describe, expect, it } from "vitest";
import { formatTaskIssues, parseTask, renderTask } from "../src/task.ts";

describe("parseTask", () => {
  it("accepts a goal alone", () => {
    expect(parseTask({ goal: "修复失败的测试" })).toEqual({
      ok: true,
      task: { goal: "修复失败的测试" },
    });
  });

  it("accepts workspace, constraints and budgets", () => {
    const input = {
      goal: "修复失败的测试",
      workspace: "repo",
      constraints: ["只改 src/"],
      budgets: {
        maxSteps: 10,
        maxToolCalls: 5,
        maxTokens: 1000,
        maxDurationMs: 60_000,
        maxRepeatedActions: 2,
      },
    };
    expect(parseTask(input)).toEqual({ ok: true, task: input });
  });

  it("trims the goal", () => {
    const result = parseTask({ goal: "  读取 README  " });
    expect(result.ok && result.task.goal).toBe("读取 README");
  });

  it("rejects a blank goal with its path", () => {
    expect(parseTask({ goal: "   " })).toEqual({
      ok: false,
      issues: [{ path: "goal", message: "目标不能为空" }],
    });
  });

  it("reports every problem at once, not only the first", () => {
    const result = parseTask({
      goal: "",
      workspace: 3,
      constraints: ["ok", ""],
      budgets: { maxSteps: -1, maxRepeatedActions: 0 },
      extra: true,
    });
    expect(result.ok).toBe(false);
    const paths = result.ok ? [] : result.issues.map((issue) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "goal",
        "workspace",
        "constraints[1]",
        "budgets.maxSteps",
        "budgets.maxRepeatedActions",
        "(root)",
      ]),
    );
    expect(paths).toHaveLength(6);
  });

  it("rejects input that is not an object at the root", () => {
    const result = parseTask("goal");
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.issues.map((issue) => issue.path)).toEqual(["(root)"]);
  });

  it.each(["modelTimeoutMs", "toolTimeoutMs", "maxRepeatedActions", "maxToolErrors"])(
    "takes %s from 1 up, with no upper cap, and rejects 0",
    (name) => {
      expect(parseTask({ goal: "g", budgets: { [name]: 1 } }).ok).toBe(true);
      expect(parseTask({ goal: "g", budgets: { [name]: 1_000_000 } }).ok).toBe(true);
      const zero = parseTask({ goal: "g", budgets: { [name]: 0 } });
      expect(zero.ok ? [] : zero.issues.map((issue) => issue.path)).toEqual([`budgets.${name}`]);
    },
  );

  it("rejects a blank workspace with its own message, and trims a workspace", () => {
    const blank = parseTask({ goal: "g", workspace: "   " });
    expect(blank.ok ? [] : blank.issues).toEqual([
      { path: "workspace", message: "工作区路径不能为空" },
    ]);
    expect(parseTask({ goal: "g", workspace: " repo " })).toMatchObject({
      ok: true,
      task: { workspace: "repo" },
    });
  });

  it("rejects a fractional budget", () => {
    const result = parseTask({ goal: "g", budgets: { maxSteps: 1.5 } });
    expect(result.ok ? [] : result.issues.map((issue) => issue.path)).toEqual(["budgets.maxSteps"]);
  });
});

describe("formatTaskIssues", () => {
  it("renders one issue per line as path and message", () => {
    expect(
      formatTaskIssues([
        { path: "goal", message: "目标不能为空" },
        { path: "budgets.maxSteps", message: "too small" },
      ]),
    ).toBe("goal: 目标不能为空\nbudgets.maxSteps: too small");
  });
});

describe("renderTask", () => {
  it("is the goal alone when there is nothing else", () => {
    expect(renderTask({ goal: "读取 README" })).toBe("读取 README");
  });

  it("writes no constraints heading for an empty list", () => {
    expect(renderTask({ goal: "g", constraints: [] })).toBe("g");
  });

  it("lists workspace and constraints after the goal", () => {
    expect(renderTask({ goal: "g", workspace: "repo", constraints: ["a", "b"] })).toBe(
      "g\n工作区：repo\n约束：\n- a\n- b",
    );
  });
});
