/** Week-1 smoke: run the minimal agent, print the verdict, exit 1 unless it passed. */
import { printVerdict } from "@bootcamp/checkpoint-shared";
import { runWeek01 } from "./run-week-01.ts";
import { judgeWeek01 } from "./week-01.ts";

printVerdict(judgeWeek01(await runWeek01()));
