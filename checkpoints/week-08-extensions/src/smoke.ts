/** Week-8 smoke: hooks in trusted and untrusted workspaces, a real MCP server, a misbehaving streamed API; exit 1 unless it passed. */
import { runWeek08 } from "./run-week-08.ts";
import { formatVerdict, judgeWeek08 } from "./week-08.ts";

const verdict = judgeWeek08(await runWeek08());
for (const line of formatVerdict(verdict)) console.log(line);
if (!verdict.ok) process.exitCode = 1;
