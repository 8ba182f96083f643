import {
  DEFAULT_MAX_OBSERVATION_CHARS,
  InvalidLimitsError,
  type Redactor,
  stableStringify,
} from "@coding-agent/agent-core";

/**
 * The characters one tool result may take once the loop has turned it into the
 * observation the model reads: the run's `maxObservationChars`. A tool that pages
 * within it is never cut by the loop's cap, so what its paging fields say is missing
 * is exactly what is missing.
 */
export interface ObservationBudget {
  readonly maxChars: number;
  /**
   * The run's redactor, applied by the loop before its cap: a secret's marker may be
   * longer than the secret, so the length is measured after it.
   */
  readonly redact?: Redactor;
}

/**
 * Keeps a tool's whole output (already redacted) where the model can page through it: the
 * run's artifacts, read back with `read_artifact`. Resolves to the artifact's id, or
 * undefined when there is nowhere to keep it (the result then stays cut, as without it).
 * `run_command` and `run_tests` use it when their output does not fit the budget: their
 * output cannot be asked for again page by page, as a file can.
 */
export type KeepOutput = (text: string, tool: string) => Promise<string | undefined>;

/** Characters a result cut to the budget keeps free for the artifact id and the note naming it. */
export const ARTIFACT_NOTE_ROOM = 250;

/** The note (Chinese) telling the model where the whole of `what` is and how to page through it. */
export function readArtifactNote(id: string, what: string): string {
  return `${what}已存为 artifact ${id}：用 read_artifact {"id":"${id}","startLine":1,"endLine":100} 分页读取`;
}

/** The smallest budget a tool can page in: a `read_file` hash and paging fields alone take ~200. */
export const MIN_OBSERVATION_BUDGET = 1_000;

/**
 * The budget for `maxChars` (the loop's default when undefined) and the run's redactor;
 * refuses a budget too small to page in.
 */
export function observationBudget(
  maxChars = DEFAULT_MAX_OBSERVATION_CHARS,
  redact?: Redactor,
): ObservationBudget {
  if (!Number.isInteger(maxChars) || maxChars < MIN_OBSERVATION_BUDGET)
    throw new InvalidLimitsError(
      `maxObservationChars must be an integer of at least ${MIN_OBSERVATION_BUDGET}, got ${maxChars}`,
    );
  return redact === undefined ? { maxChars } : { maxChars, redact };
}

/**
 * The length of `value` as the model will see it: what agent-core's
 * `serializeObservation` writes (sorted-key JSON, every escape counted, redacted with
 * `redact`) before its cap.
 */
export function observedLength(value: unknown, redact?: Redactor): number {
  const text = stableStringify(value);
  return (redact === undefined ? text : redact(text)).length;
}

/** Whether `value` reaches the model whole under `budget`. */
export function fitsBudget(value: unknown, budget: ObservationBudget): boolean {
  return observedLength(value, budget.redact) <= budget.maxChars;
}

/**
 * The largest `n` in `0..max` for which `fits(n)` holds, for a `fits` that holds up to
 * some `n` and not beyond (more lines, more matches, a longer tail): a binary search,
 * so a page of a large file costs a dozen serializations, not one per line.
 */
export function largestFitting(max: number, fits: (n: number) => boolean): number {
  let low = 0;
  let high = max;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}

/**
 * `text` with its middle replaced by a marker saying how many characters were left
 * out, keeping `keep` characters (half head, half tail: what a command said it was
 * doing and how it ended). Unchanged when it is no longer than `keep`.
 */
export function omitMiddle(text: string, keep: number): string {
  if (text.length <= keep) return text;
  let headEnd = Math.ceil(keep / 2);
  let tailStart = text.length - (keep - headEnd);
  // Never split a surrogate pair.
  if (headEnd > 0 && isHighSurrogate(text.charCodeAt(headEnd - 1))) headEnd -= 1;
  if (tailStart < text.length && isLowSurrogate(text.charCodeAt(tailStart))) tailStart += 1;
  const omitted = tailStart - headEnd;
  return `${text.slice(0, headEnd)}\n[… 省略 ${omitted} 字符（超出观察预算）…]\n${text.slice(tailStart)}`;
}

/** Whether a UTF-16 code unit opens a surrogate pair. */
export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
