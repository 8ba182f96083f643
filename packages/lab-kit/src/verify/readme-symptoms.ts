import type { TargetReport } from "../run/targets.ts";
import { type CheckLine, checkOf, failed } from "./check-line.ts";

/** The README section whose symptoms are checked against the gates' runs. */
export const FAILURES_HEADING = "## 常见失败与排查";
const SYMPTOM = /^\s*[-*] \*\*症状\*\*/;
const GATE = "gate:";

/** One symptom line of the 常见失败 section: the gates it cites and the texts it quotes. */
export interface SymptomLine {
  /** 1-based line in the README. */
  readonly line: number;
  readonly gates: readonly string[];
  readonly quotes: readonly string[];
}

/** The `- **症状**` lines of the 常见失败与排查 section that cite a gate. */
export function symptomLines(readme: string): SymptomLine[] {
  const lines = readme.split("\n");
  const start = lines.findIndex((line) => line.trim() === FAILURES_HEADING);
  if (start === -1) return [];
  const found: SymptomLine[] = [];
  for (let index = start + 1; index < lines.length; index += 1) {
    const line = lines[index] ?? "";
    if (line.startsWith("## ")) break;
    if (!SYMPTOM.test(line)) continue;
    const spans = [...line.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? "");
    const gates = spans.filter((span) => span.startsWith(GATE)).map((span) => span.slice(5));
    if (gates.length === 0) continue;
    // What the line says before its first gate is its own description; the quotes follow.
    const after = spans.slice(spans.findIndex((span) => span.startsWith(GATE)));
    found.push({ line: index + 1, gates, quotes: after.filter((span) => !span.startsWith(GATE)) });
  }
  return found;
}

/**
 * A symptom the README describes is one the tests really show. In the 常见失败与排查
 * section, a `- **症状**` line that cites a mutation gate (`` `gate:name` ``) claims that
 * the bug the gate introduces makes the tests fail like this; every code span after the
 * first gate on the line is a text the learner will read in a failure (code spans before
 * it describe the symptom in the lesson's own words and are not checked). The rule: each cited gate is a
 * mutation of `lesson.json`, and each quoted text occurs in the failure message of some
 * test that failed in every cited gate's run (messages are vitest's first line, as the
 * learner sees it after `AssertionError:`). A gate that could not run is reported by its
 * own check, not here.
 */
export function checkReadmeSymptoms(
  readme: string | undefined,
  manifest: { readonly mutations: readonly { readonly name: string }[] },
  gateReports: ReadonlyMap<string, TargetReport>,
): CheckLine {
  if (readme === undefined) return failed("README 常见失败：找不到 README.md");
  const problems: string[] = [];
  const symptoms = symptomLines(readme);
  const known = new Set(manifest.mutations.map((mutation) => mutation.name));
  for (const symptom of symptoms) {
    const where = `第 ${symptom.line} 行的症状`;
    if (symptom.quotes.length === 0) {
      problems.push(`${where}引用了变异门，却没有用代码格式引出测试会显示的文字`);
    }
    for (const gate of symptom.gates) {
      if (!known.has(gate)) {
        problems.push(`${where}引用的变异门 "${gate}" 不在 lesson.json 中`);
        continue;
      }
      const report = gateReports.get(gate);
      if (report === undefined) continue;
      const messages = report.tests
        .filter((test) => test.state === "failed")
        .map((test) => test.failure?.message ?? "");
      for (const quote of symptom.quotes) {
        if (!messages.some((message) => message.includes(quote))) {
          const first = messages[0];
          const seen = first === undefined ? "没有测试失败" : `例如“${first}”`;
          problems.push(`${where}：变异门 ${gate} 的失败信息里没有“${quote}”（${seen}）`);
        }
      }
    }
  }
  return checkOf(
    "README 常见失败：",
    problems,
    `README 常见失败：${symptoms.length} 条症状由变异门的真实失败证实`,
  );
}
