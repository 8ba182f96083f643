/** Week-3 smoke: run the sandboxed agent, print the verdict, exit 1 unless it passed. */
import { printVerdict } from "@bootcamp/checkpoint-shared";
import { runWeek03 } from "./run-week-03.ts";
import { judgeWeek03 } from "./week-03.ts";

printVerdict(judgeWeek03(await runWeek03()));
