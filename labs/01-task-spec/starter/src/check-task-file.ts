/**
 * A thin command for trying the parser by hand:
 * `pnpm exec tsx labs/01-task-spec/solution/src/check-task-file.ts <task.json>`.
 * Prints the normalised task, or every problem and exit code 2 (bad input, as lesson 02's CLI).
 */
import { readFile } from "node:fs/promises";
import { formatProblems, parseTaskText } from "./parse-task.ts";

const file = process.argv[2];
if (file === undefined) {
  console.error("用法：check-task-file.ts <任务文件.json>");
  process.exitCode = 2;
} else {
  const result = parseTaskText(await readFile(file, "utf8"));
  if (result.ok) {
    console.log(JSON.stringify(result.task, null, 2));
  } else {
    console.error(`任务文件有 ${result.problems.length} 个问题：`);
    console.error(formatProblems(result.problems));
    process.exitCode = 2;
  }
}
