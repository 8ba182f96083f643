/**
 * What the state log's fsync costs a tool call (lesson 22): the recorder appends each
 * `tool_intent` with `sync: true` (written and datasynced before the tool starts). This
 * appends the same intent lines to a `state.jsonl` on the disk the user's home is on,
 * once with `sync: true` and once without; the lines, the redactor and the writer are the
 * same, so the difference per line is the fsync.
 *
 *   pnpm --filter @coding-agent/cli bench
 */
import { mkdtemp, rm } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { createRedactor } from "@coding-agent/agent-core";
import { openStateLog } from "../src/state/log.ts";

const LINES = 200;
const ROUNDS = 5;
const redact = createRedactor();

/** Microseconds per appended intent, `sync` or not. */
async function appendIntents(dir: string, round: number, sync: boolean): Promise<number> {
  const log = await openStateLog(join(dir, `state-${round}-${sync}.jsonl`), { redact });
  const started = performance.now();
  for (let index = 0; index < LINES; index += 1) {
    await log.append(
      {
        type: "tool_intent",
        step: index + 1,
        callId: `call_${index + 1}`,
        tool: "edit_file",
        input: { path: "src/sum.js", old: "return a - b;", new: "return a + b;" },
        key: "0".repeat(64),
      },
      { sync },
    );
  }
  const elapsed = performance.now() - started;
  await log.close();
  return (elapsed * 1000) / LINES;
}

const dir = await mkdtemp(join(homedir(), ".coding-agent-bench-"));
try {
  await appendIntents(dir, -1, true); // warm-up
  const synced: number[] = [];
  const plain: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    synced.push(await appendIntents(dir, round, true));
    plain.push(await appendIntents(dir, round, false));
  }
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  console.log(
    `state log, ${LINES} tool_intent lines, median of ${ROUNDS}: ${median(synced).toFixed(0)} µs per line with fsync, ` +
      `${median(plain).toFixed(0)} µs without; the fsync costs ${(median(synced) - median(plain)).toFixed(0)} µs per tool call`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
