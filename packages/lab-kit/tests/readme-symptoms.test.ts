import { describe, expect, it } from "vitest";
import type { TargetReport } from "../src/run/targets.ts";
import { checkReadmeSymptoms } from "../src/verify/readme-symptoms.ts";

const MANIFEST = { mutations: [{ name: "drop-mode" }, { name: "forward-order" }] };

const gate = (message: string): TargetReport => ({
  label: "18:gate",
  loadErrors: [],
  tests: [
    { name: "a > passes", file: "tests/lab.test.ts", state: "passed" },
    {
      name: "a > keeps the mode",
      file: "tests/lab.test.ts",
      state: "failed",
      failure: { kind: "assertion", message },
    },
  ],
});

const REPORTS = new Map([
  ["drop-mode", gate("AssertionError: run.sh 应当仍是 750: expected '644' to be '750'")],
  [
    "forward-order",
    gate("AssertionError: 新建的文件夹都应当不见: expected [ 'made/' ] to deeply equal []"),
  ],
]);

const readme = (symptom: string) =>
  [
    "# 第 18 课",
    "",
    "## 常见失败与排查",
    "",
    "### 故障 1",
    "",
    symptom,
    "",
    "## 课后作业",
    "",
  ].join("\n");

describe("checkReadmeSymptoms", () => {
  it("passes a symptom whose quoted text the gate's failing test shows", () => {
    const result = checkReadmeSymptoms(
      readme("- **症状**（`gate:drop-mode`）：`run.sh 应当仍是 750`，实际是 `'644'`"),
      MANIFEST,
      REPORTS,
    );
    expect(result).toEqual({ ok: true, text: "README 常见失败：1 条症状由变异门的真实失败证实" });
  });

  it("fails a symptom the gate's run never shows, quoting what it does show", () => {
    const result = checkReadmeSymptoms(
      readme("- **症状**（`gate:drop-mode`）：失败列表里有 `math`"),
      MANIFEST,
      REPORTS,
    );
    expect(result.ok).toBe(false);
    expect(result.text).toContain("变异门 drop-mode 的失败信息里没有“math”");
    expect(result.text).toContain("run.sh 应当仍是 750");
  });

  it("fails a symptom that cites a gate lesson.json does not have", () => {
    const result = checkReadmeSymptoms(
      readme("- **症状**（`gate:no-such`）：`x`"),
      MANIFEST,
      REPORTS,
    );
    expect(result.text).toContain('变异门 "no-such" 不在 lesson.json 中');
  });

  it("fails a symptom that cites a gate but quotes nothing to check", () => {
    const result = checkReadmeSymptoms(
      readme("- **症状**（`gate:drop-mode`）：权限不对"),
      MANIFEST,
      REPORTS,
    );
    expect(result.ok).toBe(false);
  });

  it("checks the quote against every gate the line cites", () => {
    const result = checkReadmeSymptoms(
      readme("- **症状**（`gate:drop-mode`、`gate:forward-order`）：`made/`"),
      MANIFEST,
      REPORTS,
    );
    expect(result.text).toContain("变异门 drop-mode 的失败信息里没有“made/”");
  });

  it("checks only the code spans after the first gate: those before it describe the symptom", () => {
    const line = "- **症状**：`chmod` 之后 `run.sh` 不能执行（`gate:drop-mode`）：`写之前 750`";
    expect(checkReadmeSymptoms(readme(line), MANIFEST, REPORTS).ok).toBe(false);
    const fixed =
      "- **症状**：`chmod` 之后 `run.sh` 不能执行（`gate:drop-mode`）：`run.sh 应当仍是 750`";
    expect(checkReadmeSymptoms(readme(fixed), MANIFEST, REPORTS).ok).toBe(true);
  });

  it("leaves symptom lines without a gate, and lines outside the section, alone", () => {
    const text = `- **症状**（\`gate:no-such\`）：\`x\`\n${readme("- **症状**：程序启动失败")}`;
    expect(checkReadmeSymptoms(text, MANIFEST, REPORTS).ok).toBe(true);
  });
});
