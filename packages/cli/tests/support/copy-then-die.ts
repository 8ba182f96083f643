// Run as a process of its own: makes a subagent's isolated copy of the workspace given as
// its argument, prints the copy's workspace, then either dies at once (SIGKILL: no exit
// handler runs, as in a crash) or, with `--stay`, waits until it is killed.
import { createIsolatedCopy } from "../../src/subagents/workspace-copy.ts";

const [workspace, mode] = process.argv.slice(2);
if (workspace === undefined) throw new Error("usage: copy-then-die.ts <workspace> [--stay]");
const copy = await createIsolatedCopy(workspace);
process.stdout.write(`${copy.workspace}\n`);
if (mode === "--stay") setInterval(() => {}, 60_000);
else process.kill(process.pid, "SIGKILL");
