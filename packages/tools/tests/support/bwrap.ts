import type { TestContext } from "vitest";
import { chooseSandbox } from "../../src/sandbox/sandbox-mode.ts";

/** bubblewrap as this machine offers it, probed once per file. */
export async function bwrapForTests(workspace: string) {
  return chooseSandbox({ mode: "bwrap", workspace });
}

/**
 * Skips a test that needs a working bwrap on a developer machine without it, but
 * fails it under CI (`CI` set): there the sandbox must be proven, not assumed.
 */
export function requireBwrap(
  choice: Awaited<ReturnType<typeof bwrapForTests>>,
  context: TestContext,
): string {
  if (choice.kind === "bwrap") return choice.bwrap;
  const why = choice.kind === "unavailable" ? choice.message : "bwrap 不可用";
  if (process.env.CI) throw new Error(`CI 上必须能运行 bwrap 测试：${why}`);
  context.skip(why);
  return "";
}
