import { type LabLocation, listLabs, normalizeLessonId } from "../labs.ts";
import { formatSummary, formatVerdict, isSound } from "./check-line.ts";
import { type VerifyOptions, verifyLessons } from "./verify-lessons.ts";

/** Where the command writes; process streams in the script, buffers in tests. */
export interface CliOutput {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

type ParsedArgs =
  | { readonly ok: true; readonly labs: LabLocation[]; readonly seed: number | undefined }
  | { readonly ok: false; readonly problem: string };

function parseArgs(args: readonly string[], labs: readonly LabLocation[]): ParsedArgs {
  let all = false;
  let seed: number | undefined;
  const wanted: LabLocation[] = [];
  // pnpm may pass a literal `--` through (`pnpm --filter … verify:lesson -- 05`).
  const rest = args.filter((arg) => arg !== "--");
  for (let index = 0; index < rest.length; index++) {
    const arg = rest[index] ?? "";
    if (arg === "--all") all = true;
    else if (arg === "--seed") {
      const value = Number(rest[++index]);
      if (!Number.isInteger(value) || value < 0)
        return { ok: false, problem: "--seed 需要一个非负整数。" };
      seed = value;
    } else if (arg.startsWith("-")) return { ok: false, problem: `不认识的选项：${arg}` };
    else {
      const id = normalizeLessonId(arg);
      const lab = labs.find((candidate) => candidate.id === id);
      if (lab === undefined) return { ok: false, problem: `没有第 ${arg} 课。` };
      if (!wanted.includes(lab)) wanted.push(lab);
    }
  }
  const selected = all ? [...labs] : wanted;
  if (selected.length === 0) {
    return { ok: false, problem: all ? "还没有任何课可以验证。" : "请给出课号，或用 --all。" };
  }
  return { ok: true, labs: selected, seed };
}

/**
 * `verify:lesson NN… | --all [--seed N]`. Returns the exit code: 0 every lab sound,
 * 1 a check failed, 2 bad usage (the message lists the lessons that exist).
 */
export async function runVerifyCli(
  repoRoot: string,
  args: readonly string[],
  output: CliOutput,
  options: Omit<VerifyOptions, "seed"> = {},
): Promise<number> {
  const labs = await listLabs(repoRoot);
  const parsed = parseArgs(args, labs);
  if (!parsed.ok) {
    const list = labs.map((lab) => `  ${lab.id}  ${lab.slug}`).join("\n") || "  （还没有任何课）";
    output.err(
      `${parsed.problem}\n用法：pnpm verify:lesson <课号> | --all [--seed <数字>]\n现有的课：\n${list}\n`,
    );
    return 2;
  }
  const verdicts = await verifyLessons(repoRoot, parsed.labs, {
    ...options,
    ...(parsed.seed === undefined ? {} : { seed: parsed.seed }),
  });
  output.out(`${verdicts.map(formatVerdict).join("\n\n")}\n`);
  if (verdicts.length > 1) output.out(`\n${formatSummary(verdicts)}\n`);
  return verdicts.every(isSound) ? 0 : 1;
}
