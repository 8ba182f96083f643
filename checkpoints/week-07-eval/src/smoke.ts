/** Week-7 smoke: the bundled eval suite graded for real, then a broken task caught by the baseline; exit 1 unless it passed. */
import { printVerdict } from "@bootcamp/checkpoint-shared";
import { runWeek07 } from "./run-week-07.ts";
import { judgeWeek07 } from "./week-07.ts";

printVerdict(judgeWeek07(await runWeek07()));
