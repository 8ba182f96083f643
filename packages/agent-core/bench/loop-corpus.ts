/**
 * Lesson 24's loop detector on its labelled corpus (`tests/support/loop-corpus.ts`):
 * false positives (a legitimate run stopped; goal 0) and misses (a loop not stopped
 * `loop_detected`), with the workspace version injected and without it. Exits 1 on any
 * false positive. Run: `pnpm --filter @coding-agent/agent-core bench:loops`.
 */
import { CORPUS, judged, runCorpusCase } from "../tests/support/loop-corpus.ts";

let falsePositives = 0;
for (const withVersion of [true, false]) {
  const counts = { ok: 0, false_positive: 0, miss: 0 };
  for (const corpusCase of CORPUS) {
    const verdict = judged(corpusCase, await runCorpusCase(corpusCase, { withVersion }));
    // Without a version getter, loops of file-changing tools are invisible by design.
    if (verdict === "miss" && !withVersion && corpusCase.needsVersion) continue;
    counts[verdict] += 1;
    if (verdict !== "ok") console.log(`  ${verdict}: ${corpusCase.name}`);
  }
  const legitimate = CORPUS.filter((corpusCase) => corpusCase.label === "legitimate").length;
  const unseen = withVersion ? 0 : CORPUS.filter((corpusCase) => corpusCase.needsVersion).length;
  const loops = CORPUS.length - legitimate - unseen;
  console.log(
    `${withVersion ? "with version   " : "without version"}  false positives ${counts.false_positive}/${legitimate} legitimate runs · misses ${counts.miss}/${loops} loops`,
  );
  falsePositives += counts.false_positive;
}
process.exitCode = falsePositives === 0 ? 0 : 1;
