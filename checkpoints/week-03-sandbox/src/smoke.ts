/** Week-3 smoke: run the sandboxed agent, print the verdict, exit 1 unless it passed. */
import { runWeek03 } from "./run-week-03.ts";
import { formatVerdict, judgeWeek03 } from "./week-03.ts";

const verdict = judgeWeek03(await runWeek03());
for (const line of formatVerdict(verdict)) console.log(line);
if (!verdict.ok) process.exitCode = 1;
