/** Week-8 smoke: hooks in trusted and untrusted workspaces, a real MCP server, a misbehaving streamed API; exit 1 unless it passed. */
import { printVerdict } from "@bootcamp/checkpoint-shared";
import { runWeek08 } from "./run-week-08.ts";
import { judgeWeek08 } from "./week-08.ts";

printVerdict(judgeWeek08(await runWeek08()));
