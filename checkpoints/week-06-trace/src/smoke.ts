/** Week-6 smoke: real runs of the capstone, traced, replayed, priced and reported; exit 1 unless it passed. */
import { printVerdict } from "@bootcamp/checkpoint-shared";
import { runWeek06 } from "./run-week-06.ts";
import { judgeWeek06 } from "./week-06.ts";

printVerdict(judgeWeek06(await runWeek06()));
