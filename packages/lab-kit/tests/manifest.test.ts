import { describe, expect, it } from "vitest";
import { parseManifest } from "../src/manifest.ts";

function problemsOf(data: unknown): readonly string[] {
  const result = parseManifest("labs/99-x/lesson.json", data);
  if (result.ok) throw new Error("expected the manifest to be rejected");
  return result.problems;
}

describe("parseManifest problems", () => {
  it("name the whole manifest (根), in Chinese", () => {
    expect(problemsOf([])).toEqual(["(根): 无效输入：期望 object，实际接收 数组"]);
  });

  it("name every bad field with the shared path notation, indices in brackets", () => {
    const problems = problemsOf({ id: 5, mutations: [{ name: "m" }] });
    expect(problems).toContain("id: 无效输入：期望 string，实际接收 数字");
    expect(problems).toContain("mutations[0].file: 无效输入：期望 string，实际接收 undefined");
    expect(problems.some((problem) => problem.startsWith("mutations.0"))).toBe(false);
  });

  it("name a mutation whose name an earlier one already has", () => {
    const mutation = { name: "same", description: "d", file: "src/a.ts", find: "a", replace: "b" };
    const problems = problemsOf({
      mutations: [
        { ...mutation, breaks: ["t"] },
        { ...mutation, breaks: ["t"] },
      ],
    });
    expect(problems).toContain("mutations[1].name: 变异名 same 重复，每个变异门的名字必须唯一");
    expect(problems.some((problem) => problem.startsWith("mutations[0].name"))).toBe(false);
  });

  it("keep zod's English messages for every other parse in the process", async () => {
    const { z } = await import("zod");
    expect(z.string().safeParse(1).error?.issues[0]?.message).toBe(
      "Invalid input: expected string, received number",
    );
  });
});
