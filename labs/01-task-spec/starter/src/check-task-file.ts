/**
 * 手动试用解析器的小命令：
 * `pnpm exec tsx labs/01-task-spec/solution/src/check-task-file.ts <task.json>`。打印规范化后的任务，
 * 或者列出每一个问题并以退出码 2（输入有误，与第 02 课的 CLI 一致）结束。
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
