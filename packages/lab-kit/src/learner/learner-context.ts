import { createInterface } from "node:readline/promises";
import { findRepoRoot } from "../git.ts";
import type { RunOptions } from "../run/runner.ts";
import type { RunTarget, TargetReport } from "../run/targets.ts";
import type { OutputStream } from "./terminal.ts";

/**
 * Runs lab tests against targets: `runLabTargets` from `@bootcamp/lab-kit`, told (when the
 * caller asks) as each target finishes.
 */
export type RunLabTargets = (
  targets: readonly RunTarget[],
  options?: Pick<RunOptions, "onTargetDone">,
) => Promise<TargetReport[]>;

/** Where a learner command runs: its streams, environment and the test runner it uses. */
export interface LearnerContext {
  /** Any folder inside the repository (the scripts pass `process.cwd()`). */
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  /** Where a confirmation is read from; absent or not a terminal means no one can answer. */
  readonly stdin?: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly runTargets: RunLabTargets;
  /** The clock for backup folder names. */
  readonly now?: () => Date;
}

/** The repository root above `cwd`, or `cwd` itself outside a repository. */
export async function repoRootOf(context: LearnerContext): Promise<string> {
  return (await findRepoRoot(context.cwd)) ?? context.cwd;
}

/**
 * Asks a yes/no question on the terminal; only `y` or `yes` (or 是) count as yes.
 * Undefined when stdin is not a terminal, so a caller refuses instead of hanging.
 */
export async function askConfirmation(
  context: LearnerContext,
  question: string,
): Promise<boolean | undefined> {
  const stdin = context.stdin;
  if (stdin === undefined || stdin.isTTY !== true) return undefined;
  const rl = createInterface({
    input: stdin,
    output: context.stdout as NodeJS.WritableStream,
  });
  try {
    const answer = (await rl.question(question)).trim().toLowerCase();
    return answer === "y" || answer === "yes" || answer === "是";
  } finally {
    rl.close();
  }
}
