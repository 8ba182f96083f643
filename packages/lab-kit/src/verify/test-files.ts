import { readFile } from "node:fs/promises";
import path from "node:path";
import { glob } from "tinyglobby";

/** The lab test files every run includes, relative to the lab folder. */
export const LAB_TEST_GLOB = "tests/**/*.test.ts";
/** Names vitest (or a reader) would take for a test file. */
const LOOKS_LIKE_TEST = /\.(test|spec)\.[cm]?[jt]sx?$/;
/** A call through a modifier that keeps a test from proving anything (`it.skip(`, `ctx.skip(`, …). */
const MODIFIER = /\.\s*(skip|skipIf|runIf|only|todo|fails)\s*\(/;

/** What the lab's `tests/` folder holds, and what in it breaks the lab test rules. */
export interface TestFolderScan {
  /** Test files the lab config runs (`tests/…`). */
  readonly testFiles: readonly string[];
  /** Chinese problems, each naming its file (and line). */
  readonly problems: readonly string[];
}

/**
 * Static rules over a lab's `tests/`: no file that looks like a test but is never run, and
 * no modifier written in any test file or helper. The run catches modifiers a text scan
 * cannot see; this catches those that happen to have no effect on one run.
 */
export async function scanTestFolder(labDir: string): Promise<TestFolderScan> {
  const files = await glob("tests/**/*", {
    cwd: labDir,
    ignore: ["**/node_modules/**"],
    dot: true,
  });
  files.sort();
  const problems: string[] = [];
  const testFiles = files.filter((file) => file.endsWith(".test.ts"));
  for (const file of files) {
    if (LOOKS_LIKE_TEST.test(file) && !file.endsWith(".test.ts")) {
      problems.push(`${file} 不会被运行：实验只运行 ${LAB_TEST_GLOB}`);
    }
  }
  for (const file of files.filter((name) => /\.[cm]?[jt]sx?$/.test(name))) {
    const lines = (await readFile(path.join(labDir, file), "utf8")).split("\n");
    lines.forEach((line, index) => {
      const trimmed = line.trim();
      if (trimmed.startsWith("//") || trimmed.startsWith("*")) return;
      const match = MODIFIER.exec(line);
      if (match !== null) {
        problems.push(
          `${file} 第 ${index + 1} 行使用了 .${match[1]}：实验测试不允许 skip、only、todo、fails`,
        );
      }
    });
  }
  return { testFiles, problems };
}
