import { readCommittedTrees } from "../git.ts";
import type { ResolvedLab } from "./lab-lookup.ts";
import { compareWithTree } from "./working-tree.ts";

/** Whether a lab's shared tests are still the committed ones. */
export type TestsIntegrity =
  | { readonly state: "intact" }
  | {
      readonly state: "changed";
      readonly modified: readonly string[];
      readonly added: readonly string[];
      readonly removed: readonly string[];
    }
  /** The tests are not committed (or there is no repository), so nothing to compare with. */
  | { readonly state: "unknown" };

/**
 * Compares a lab's `tests/` folder with HEAD. A learner could otherwise make a lab "pass"
 * by weakening its tests, so every learner command reports a change.
 */
export async function checkTestsIntegrity(
  lab: Pick<ResolvedLab, "testsDir">,
): Promise<TestsIntegrity> {
  const [integrity] = await checkTestsIntegrityOfLabs(lab.testsDir, [lab]);
  return integrity ?? { state: "unknown" };
}

/**
 * `checkTestsIntegrity` for many labs, in order, reading HEAD for all of them with two git
 * processes instead of two per lab; `cwd` is any folder of the repository the labs are in.
 */
export async function checkTestsIntegrityOfLabs(
  cwd: string,
  labs: readonly Pick<ResolvedLab, "testsDir">[],
): Promise<TestsIntegrity[]> {
  const trees = await readCommittedTrees(
    cwd,
    labs.map((lab) => lab.testsDir),
  );
  return Promise.all(
    labs.map(async (lab): Promise<TestsIntegrity> => {
      const comparison = await compareWithTree(lab.testsDir, trees.get(lab.testsDir));
      if (comparison.state === "uncommitted") return { state: "unknown" };
      const { modified, added, removed } = comparison;
      if (modified.length + added.length + removed.length === 0) return { state: "intact" };
      return { state: "changed", modified, added, removed };
    }),
  );
}

/**
 * The plain Chinese notice for a changed or unverifiable `tests/`, or undefined when the
 * tests are the committed ones.
 */
export function describeIntegrity(
  lab: Pick<ResolvedLab, "name">,
  integrity: TestsIntegrity,
): string | undefined {
  if (integrity.state === "intact") return undefined;
  if (integrity.state === "unknown") {
    return `注意：${lab.name}/tests/ 还没有提交到 git，无法确认测试是否被改动。`;
  }
  const parts = [
    ...integrity.modified.map((file) => `已修改 ${file}`),
    ...integrity.added.map((file) => `新增 ${file}`),
    ...integrity.removed.map((file) => `已删除 ${file}`),
  ];
  return [
    `注意：${lab.name}/tests/ 与提交的版本不同（${parts.join("，")}）。`,
    `  测试被改动后，「通过」不再能证明你的代码正确。查看改动：git diff -- ${lab.name}/tests`,
    `  恢复原测试：git restore --source=HEAD -- ${lab.name}/tests`,
  ].join("\n");
}
