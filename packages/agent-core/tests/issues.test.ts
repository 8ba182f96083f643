import { describe, expect, it } from "vitest";
import { z } from "zod";
import { formatIssuePath, formatValueIssues, toValueIssues } from "../src/issues.ts";

const Schema = z.strictObject({
  goal: z.string().min(1, "goal 不能为空"),
  turns: z.array(z.strictObject({ delayMs: z.int().min(0, "delayMs 不能为负") })),
});

function issuesOf(value: unknown, params?: z.core.ParseContext<z.core.$ZodIssue>) {
  const parsed = Schema.safeParse(value, params);
  if (parsed.success) throw new Error("expected the value to be invalid");
  return parsed.error.issues;
}

describe("formatIssuePath", () => {
  it.each([
    [[], "(root)"],
    [["goal"], "goal"],
    [["budgets", "maxSteps"], "budgets.maxSteps"],
    [["turns", 1, "delayMs"], "turns[1].delayMs"],
    [[0, "action"], "[0].action"],
  ] as const)("writes %j as %s", (path, expected) => {
    expect(formatIssuePath(path)).toBe(expected);
  });

  it("names the value itself as the reader's language spells it", () => {
    expect(formatIssuePath([], "(根)")).toBe("(根)");
    expect(formatIssuePath(["goal"], "(根)")).toBe("goal");
  });
});

describe("toValueIssues and formatValueIssues", () => {
  it("report every issue, each at its field", () => {
    const issues = toValueIssues(issuesOf({ goal: "", turns: [{ delayMs: 0 }, { delayMs: -5 }] }));
    expect(formatValueIssues(issues, "；")).toBe(
      "goal: goal 不能为空；turns[1].delayMs: delayMs 不能为负",
    );
  });

  it("name an issue about the whole value with the root label asked for", () => {
    expect(toValueIssues(issuesOf([]))[0]?.path).toBe("(root)");
    expect(toValueIssues(issuesOf([]), "(根)")[0]?.path).toBe("(根)");
  });

  it("keep zod's Chinese messages when the parse asks for them, for that parse only", () => {
    const chinese = issuesOf({ goal: 1, turns: [] }, { error: z.locales.zhCN().localeError });
    expect(formatValueIssues(toValueIssues(chinese))).toBe(
      "goal: 无效输入：期望 string，实际接收 数字",
    );
    expect(formatValueIssues(toValueIssues(issuesOf({ goal: 1, turns: [] })))).toBe(
      "goal: Invalid input: expected string, received number",
    );
  });
});
