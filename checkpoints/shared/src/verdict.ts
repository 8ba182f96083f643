/**
 * A checkpoint's verdict: which week, what it proves (`summary`), the evidence read from the
 * real runs, and on failure why. Printed as one Chinese line and the same verdict as JSON.
 */
export type Verdict<W extends number = number> = {
  readonly week: W;
  readonly summary: string;
  readonly evidence: readonly string[];
} & ({ readonly ok: true } | { readonly ok: false; readonly reason: string });

/** A passing verdict (its JSON keys in the printed order: week, ok, summary, evidence). */
export function passed<W extends number>(
  week: W,
  summary: string,
  evidence: readonly string[],
): Verdict<W> {
  return { week, ok: true, summary, evidence };
}

/** A failing verdict: the evidence gathered up to the failure, and the reason (in Chinese). */
export function failed<W extends number>(
  week: W,
  summary: string,
  evidence: readonly string[],
  reason: string,
): Verdict<W> {
  return { week, ok: false, summary, evidence, reason };
}

/** The two lines a checkpoint prints: a Chinese verdict, then the verdict as one JSON line. */
export function formatVerdict(verdict: Verdict): [string, string] {
  const head = verdict.ok
    ? `第 ${verdict.week} 周检查点通过：${verdict.summary}`
    : `第 ${verdict.week} 周检查点未通过：${verdict.reason}`;
  return [head, JSON.stringify(verdict)];
}

/** A checkpoint's smoke: prints the two lines; the process exits 1 unless the verdict passed. */
export function printVerdict(verdict: Verdict): void {
  for (const line of formatVerdict(verdict)) console.log(line);
  if (!verdict.ok) process.exitCode = 1;
}
