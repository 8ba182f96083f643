/** Week-1 smoke: run the minimal agent, print the verdict, exit 1 unless it passed. */
import { runWeek01 } from "./run-week-01.ts";
import { formatVerdict, judgeWeek01 } from "./week-01.ts";

const verdict = judgeWeek01(await runWeek01());
for (const line of formatVerdict(verdict)) console.log(line);
if (!verdict.ok) process.exitCode = 1;
