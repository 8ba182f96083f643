/** Week-4 smoke: let the agent fix a failing repository, print the verdict, exit 1 unless it passed. */
import { printVerdict } from "@bootcamp/checkpoint-shared";
import { runWeek04 } from "./run-week-04.ts";
import { judgeWeek04 } from "./week-04.ts";

printVerdict(judgeWeek04(await runWeek04()));
