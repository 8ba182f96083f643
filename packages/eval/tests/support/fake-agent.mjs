// Stands in for `coding-agent run` in the harness's tests: the harness's contract with the
// agent is argv in, a RunResult as JSON on stdout. The goal says what to do; FAKE_AGENT_LOG
// (a folder) receives one line per run: its argv and its start and end times.
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

const argv = process.argv.slice(2);
const goal = argv[1] ?? "";
const workspace = argv[argv.indexOf("--workspace") + 1] ?? ".";
const log = process.env.FAKE_AGENT_LOG;
const startedAt = Date.now();
const record = () => {
  if (log !== undefined)
    appendFileSync(
      path.join(log, "runs.jsonl"),
      `${JSON.stringify({ argv, startedAt, endedAt: Date.now() })}\n`,
    );
};
const done = (status, code) => {
  record();
  process.stdout.write(JSON.stringify({ status, code, runId: `fake-${goal}` }));
};

if (goal === "hang") setInterval(() => {}, 1000);
else if (goal === "crash") {
  process.stderr.write("boom: something broke\n");
  process.exitCode = 2;
} else if (goal.startsWith("wait:"))
  setTimeout(() => done("completed", "finished"), Number(goal.slice(5)));
else if (goal.startsWith("write:")) {
  // `write:a.txt,build/b.txt`: each file, its folders made.
  for (const file of goal.slice(6).split(",")) {
    mkdirSync(path.dirname(path.join(workspace, file)), { recursive: true });
    writeFileSync(path.join(workspace, file), "written by the agent\n");
  }
  done("completed", "finished");
} else if (goal === "rmws") {
  rmSync(workspace, { recursive: true, force: true });
  done("completed", "finished");
} else if (goal.startsWith("status:")) {
  const [status, code] = goal.slice(7).split("/");
  done(status, code);
} else done("completed", "finished");
