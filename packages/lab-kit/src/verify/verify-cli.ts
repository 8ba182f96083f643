import { parseArgsOrExplain } from "@coding-agent/cli/parse-args";
import { type LabLocation, listLabs, normalizeLessonId } from "../labs.ts";
import { type CliOutput, EXIT_CODES } from "../tool-output.ts";
import { formatSummary, formatVerdict, isSound } from "./check-line.ts";
import { verifyLessons } from "./verify-lessons.ts";

/**
 * `verify:lesson NN… | --all [--seed N] [--no-cache]`. Returns the exit code: 0 every lab sound,
 * 1 a check failed, 2 bad usage (the message lists the lessons that exist).
 */
export async function runVerifyCli(
  repoRoot: string,
  args: readonly string[],
  output: CliOutput,
): Promise<number> {
  const labs = await listLabs(repoRoot);
  const usage = (problem: string): number => {
    const list = labs.map((lab) => `  ${lab.id}  ${lab.slug}`).join("\n") || "  （还没有任何课）";
    output.err(
      `${problem}\n用法：pnpm verify:lesson <课号> | --all [--seed <数字>] [--no-cache]\n现有的课：\n${list}\n`,
    );
    return EXIT_CODES.usage;
  };
  // pnpm may pass a literal `--` through (`pnpm --filter … verify:lesson -- 05`).
  const result = parseArgsOrExplain({
    args: args.filter((arg) => arg !== "--"),
    options: {
      all: { type: "boolean" },
      seed: { type: "string" },
      "no-cache": { type: "boolean" },
    },
    allowPositionals: true,
    strict: true,
  });
  if (!result.ok) return usage(`${result.message}。`);
  const { values, positionals } = result.parsed;
  const seed =
    values.seed === undefined
      ? undefined
      : /^\d+$/.test(values.seed)
        ? Number(values.seed)
        : Number.NaN;
  if (seed !== undefined && !Number.isSafeInteger(seed)) return usage("--seed 需要一个非负整数。");
  const wanted: LabLocation[] = [];
  for (const arg of positionals) {
    const id = normalizeLessonId(arg);
    // Every folder with this number: two of them are a manifest error, not a choice.
    const found = labs.filter((candidate) => candidate.id === id);
    if (found.length === 0) return usage(`没有第 ${arg} 课。`);
    for (const lab of found) if (!wanted.includes(lab)) wanted.push(lab);
  }
  const all = values.all === true;
  const selected = all ? labs : wanted;
  if (selected.length === 0)
    return usage(all ? "还没有任何课可以验证。" : "请给出课号，或用 --all。");
  const verdicts = await verifyLessons(repoRoot, selected, {
    cache: values["no-cache"] !== true,
    ...(seed === undefined ? {} : { seed }),
  });
  output.out(`${verdicts.map(formatVerdict).join("\n\n")}\n`);
  if (verdicts.length > 1) output.out(`\n${formatSummary(verdicts)}\n`);
  return verdicts.every(isSound) ? EXIT_CODES.ok : EXIT_CODES.failed;
}
