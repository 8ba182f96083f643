import type { TargetReport } from "../run/targets.ts";
import { type CheckLine, checkOf, failed, GATE } from "./check-line.ts";
import { codeSpans, readmeSection } from "./readme-outputs.ts";

const FAILURES_HEADING = "## 常见失败与排查";
const SYMPTOM = /^\s*[-*] \*\*症状\*\*/;

/**
 * The `- **症状**` lines of the 常见失败与排查 section that cite a gate: the gates, and the
 * code spans after the first gate (those before it describe the symptom in the lesson's
 * own words and are not checked).
 */
function symptomLines(readme: string): { line: number; gates: string[]; quotes: string[] }[] {
  const section = readmeSection(readme, FAILURES_HEADING);
  if (section === undefined) return [];
  return section.lines.flatMap((text, offset) => {
    const spans = SYMPTOM.test(text) ? codeSpans(text) : [];
    const first = spans.findIndex((span) => span.startsWith(GATE));
    if (first === -1) return [];
    const gates = spans
      .filter((span) => span.startsWith(GATE))
      .map((span) => span.slice(GATE.length));
    const quotes = spans.slice(first).filter((span) => !span.startsWith(GATE));
    return [{ line: section.start + offset + 2, gates, quotes }];
  });
}

/**
 * A symptom the README describes is one the tests really show (docs/architecture.md,
 * verify:lesson rule 12): each cited gate is a mutation of `lesson.json`, and each quoted
 * text occurs in the failure message of some test that failed in every cited gate's run.
 * A gate that could not run is reported by its own check, not here.
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
