/** Week-5 smoke: four real runs of the capstone, the verdict, exit 1 unless it passed. */
import { runWeek05 } from "./run-week-05.ts";
import { formatVerdict, judgeWeek05 } from "./week-05.ts";

const verdict = judgeWeek05(await runWeek05());
for (const line of formatVerdict(verdict)) console.log(line);
if (!verdict.ok) process.exitCode = 1;
