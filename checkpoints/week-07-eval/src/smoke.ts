/** Week-7 smoke: the bundled eval suite graded for real, then a broken task caught by the baseline; exit 1 unless it passed. */
import { runWeek07 } from "./run-week-07.ts";
import { formatVerdict, judgeWeek07 } from "./week-07.ts";

const verdict = judgeWeek07(await runWeek07());
for (const line of formatVerdict(verdict)) console.log(line);
if (!verdict.ok) process.exitCode = 1;
