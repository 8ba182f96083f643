/** Week-4 smoke: let the agent fix a failing repository, print the verdict, exit 1 unless it passed. */
import { runWeek04 } from "./run-week-04.ts";
import { formatVerdict, judgeWeek04 } from "./week-04.ts";

const verdict = judgeWeek04(await runWeek04());
for (const line of formatVerdict(verdict)) console.log(line);
if (!verdict.ok) process.exitCode = 1;
