import type { CapturedCliRun } from "@coding-agent/cli";
import type { z } from "zod";
import { failed, passed, type Verdict } from "./verdict.ts";

/** The reason a judge refuses a checkpoint's evidence: the first check that did not hold. */
export class Refusal extends Error {}

/** Refuses the evidence with `reason` (in Chinese): the verdict fails with it. */
export function refuse(reason: string): never {
  throw new Refusal(reason);
}

/**
 * The verdict of a judge that refuses with `refuse`: passed with the evidence `judge` returns,
 * or failed with the first refusal's reason (and no evidence). Any other error is a bug of
 * the judge, not a verdict, and is thrown.
 */
export function judgeByRefusal<W extends number>(
  week: W,
  summary: string,
  judge: () => readonly string[],
): Verdict<W> {
  try {
    return passed(week, summary, judge());
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return failed(week, summary, [], error.message);
  }
}

/**
 * What `run` printed as its `--json` output, checked against `schema` (it crosses a process
 * boundary). Refuses, naming the run by `name`, output that is not JSON (with the end of its
 * stderr, where the CLI says why) or lacks what `schema` reads; `what` names the output
 * ("结果" for a RunResult, "报告" for an eval report).
 */
export function cliJson<S extends z.ZodType>(
  name: string,
  run: CapturedCliRun,
  schema: S,
  what = "结果",
): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(run.stdout);
  } catch {
    refuse(`${name}：stdout 不是 JSON（退出码 ${run.exitCode}）：${run.stderr.slice(-300)}`);
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : refuse(`${name}：--json ${what}的字段不对`);
}

/** `text` parsed as JSON, or undefined when it is not JSON. */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
