/** Week-2 smoke: run both scenarios, print the verdict, exit 1 unless it passed. */
import { printVerdict } from "@bootcamp/checkpoint-shared";
import { runWeek02 } from "./run-week-02.ts";
import { judgeWeek02 } from "./week-02.ts";

printVerdict(judgeWeek02(await runWeek02()));
