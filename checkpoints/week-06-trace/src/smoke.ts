/** Week-6 smoke: real runs of the capstone, traced, replayed, priced and reported; exit 1 unless it passed. */
import { runWeek06 } from "./run-week-06.ts";
import { formatVerdict, judgeWeek06 } from "./week-06.ts";

const verdict = judgeWeek06(await runWeek06());
for (const line of formatVerdict(verdict)) console.log(line);
if (!verdict.ok) process.exitCode = 1;
