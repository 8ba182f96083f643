// Global setup of every lab's own test run (`pnpm --dir labs/NN-slug/starter test`): a
// learner could make a lab "pass" by weakening its shared tests, so the run says plainly
// when `tests/` differs from the committed version. Plain JavaScript for the same reason as
// vitest-config.js. It only warns; it never fails or slows the run noticeably.
import { execFileSync } from "node:child_process";
import path from "node:path";

/**
 * The Chinese notice for changed tests, or undefined when they match HEAD (or when there is
 * no git repository to compare with).
 * @param {string} labDir the lab folder that holds `tests/`
 * @returns {string | undefined}
 */
export function changedTestsNotice(labDir) {
  let status;
  try {
    status = execFileSync("git", ["status", "--porcelain", "--", "tests"], {
      cwd: labDir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch {
    return undefined;
  }
  const files = status
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => line.slice(3).replace(/^.*\/tests\//, ""));
  if (files.length === 0) return undefined;
  const name = path.basename(labDir);
  return [
    `注意：labs/${name}/tests/ 与提交的版本不同（${files.join("，")}）。`,
    "  测试被改动后，「通过」不再能证明你的代码正确。",
    `  恢复原测试：git restore --source=HEAD -- labs/${name}/tests`,
  ].join("\n");
}

/** @param {{ config: { dir?: string, root: string } }} project */
export default function warnIfTestsChanged(project) {
  const notice = changedTestsNotice(project.config.dir ?? path.dirname(project.config.root));
  if (notice !== undefined) process.stderr.write(`\n${notice}\n\n`);
}
