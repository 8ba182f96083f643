/** Week-5 smoke: four real runs of the capstone, the verdict, exit 1 unless it passed. */
import { printVerdict } from "@bootcamp/checkpoint-shared";
import { runWeek05 } from "./run-week-05.ts";
import { judgeWeek05 } from "./week-05.ts";

printVerdict(judgeWeek05(await runWeek05()));
