/** Week-2 smoke: run both scenarios, print the verdict, exit 1 unless it passed. */
import { runWeek02 } from "./run-week-02.ts";
import { formatVerdict, judgeWeek02 } from "./week-02.ts";

const verdict = judgeWeek02(await runWeek02());
for (const line of formatVerdict(verdict)) console.log(line);
if (!verdict.ok) process.exitCode = 1;
