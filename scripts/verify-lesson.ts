/**
 * `pnpm verify:lesson NN | --all [--seed N]`: proves lessons are sound (see lab-kit's
 * verifyLessons) and reports, apart, where the learner's own starter stands.
 * Exit codes: 0 sound, 1 a check failed, 2 bad usage.
 */
import path from "node:path";
import {
  formatSummary,
  formatVerdict,
  isSound,
  type LabLocation,
  listLabs,
  normalizeLessonId,
  verifyLessons,
} from "@bootcamp/lab-kit";

const repoRoot = path.resolve(import.meta.dirname, "..");

function usage(labs: readonly LabLocation[], problem: string): never {
  const list = labs.map((lab) => `  ${lab.id}  ${lab.slug}`).join("\n") || "  （还没有任何课）";
  process.stderr.write(
    `${problem}\n用法：pnpm verify:lesson <课号> | --all [--seed <数字>]\n现有的课：\n${list}\n`,
  );
  process.exit(2);
}

async function main(): Promise<void> {
  const labs = await listLabs(repoRoot);
  const args = process.argv.slice(2).filter((arg) => arg !== "--");
  let all = false;
  let seed: number | undefined;
  const wanted: LabLocation[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? "";
    if (arg === "--all") all = true;
    else if (arg === "--seed") {
      const value = Number(args[++index]);
      if (!Number.isInteger(value) || value < 0) usage(labs, "--seed 需要一个非负整数。");
      seed = value;
    } else if (arg.startsWith("-")) usage(labs, `不认识的选项：${arg}`);
    else {
      const id = normalizeLessonId(arg);
      const lab = labs.find((candidate) => candidate.id === id);
      if (lab === undefined) usage(labs, `没有第 ${arg} 课。`);
      wanted.push(lab);
    }
  }
  const selected = all ? labs : wanted;
  if (selected.length === 0)
    usage(labs, all ? "还没有任何课可以验证。" : "请给出课号，或用 --all。");
  const verdicts = await verifyLessons(repoRoot, selected, seed === undefined ? {} : { seed });
  process.stdout.write(`${verdicts.map(formatVerdict).join("\n\n")}\n`);
  const unsound = verdicts.filter((verdict) => !isSound(verdict));
  if (verdicts.length > 1) process.stdout.write(`\n${formatSummary(verdicts)}\n`);
  process.exitCode = unsound.length === 0 ? 0 : 1;
}

await main();
