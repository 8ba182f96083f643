/**
 * What a run's traces cost a step (lessons 26–27), on the path `coding-agent run` takes:
 * the same `runAgent` with the zero-latency scripted model and an echo tool, once with no
 * trace, once with the `trace.jsonl` sink as the required trace (one line per event,
 * written synchronously to a file on the disk the user's home is on), and once with that
 * file and the OpenTelemetry export to a collector on loopback (flushed at the end, as the
 * CLI does). The difference per step is the traces' cost; a step is a model call and a
 * tool call (four events).
 *
 *   pnpm --filter @coding-agent/cli bench
 */
import { mkdtemp, rm } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { createRedactor, type RunOptions, runAgent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { createJsonlTraceSink, fileTraceWriter } from "../src/trace/jsonl-sink.ts";
import { startOtelExport } from "../src/trace/otel-export.ts";
import { startCollector } from "../tests/support/otlp-collector.ts";

const STEPS = 200;
const ROUNDS = 5;
const redact = createRedactor();
const tools = { echo: { execute: (input: { text?: unknown }) => String(input.text) } };

function script() {
  const turns = Array.from({ length: STEPS - 1 }, (_, index) => ({
    action: { type: "tool_call", tool: "echo", input: { text: `step ${index + 1}` } },
    usage: { inputTokens: 100, outputTokens: 10 },
  }));
  return createScriptedProvider([...turns, { action: { type: "finish", summary: "done" } }]);
}

/** Microseconds per step of one run, with what `traces` sets up (and ends) around it. */
async function perStep(
  traces: () => Promise<{ readonly options: RunOptions; end(): Promise<void> }>,
): Promise<number> {
  const { options, end } = await traces();
  const started = performance.now();
  const result = await runAgent("bench", script(), tools, { maxSteps: STEPS + 1 }, undefined, {
    redact,
    ...options,
  });
  await end();
  const elapsed = performance.now() - started;
  if (result.status !== "completed") throw new Error(`bench run ended ${result.code}`);
  return (elapsed * 1000) / STEPS;
}

const dir = await mkdtemp(join(homedir(), ".coding-agent-bench-"));
const collector = await startCollector();
let file = 0;
const none = async () => ({ options: {}, end: async () => {} });
const jsonl = async () => {
  file += 1;
  const sink = createJsonlTraceSink({
    runId: "bench",
    writer: fileTraceWriter(join(dir, `trace-${file}.jsonl`)),
    redact,
  });
  return { options: { requiredTrace: sink.sink }, end: async () => sink.close() };
};
const jsonlAndOtlp = async () => {
  const file = await jsonl();
  const otel = await startOtelExport({
    url: `${collector.endpoint}/v1/traces`,
    runId: "bench",
    providerName: "fake",
    model: "fake",
    captureContent: false,
    redact,
    warn: (message) => {
      throw new Error(`the loopback collector failed: ${message}`);
    },
  });
  return {
    options: { ...file.options, trace: otel.sink },
    end: async () => {
      await file.end();
      await otel.end();
    },
  };
};

try {
  for (const traces of [none, jsonl, jsonlAndOtlp]) await perStep(traces); // warm-up
  const rows: Record<string, number[]> = { none: [], jsonl: [], otlp: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    rows.none?.push(await perStep(none));
    rows.jsonl?.push(await perStep(jsonl));
    rows.otlp?.push(await perStep(jsonlAndOtlp));
  }
  const median = (values: number[] = []) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const [bare, file, both] = [median(rows.none), median(rows.jsonl), median(rows.otlp)];
  console.log(
    `trace sinks, ${STEPS} steps (model call + tool call), median of ${ROUNDS}: ` +
      `${bare.toFixed(1)} µs per step without traces, ${file.toFixed(1)} µs with trace.jsonl ` +
      `(+${(file - bare).toFixed(1)}), ${both.toFixed(1)} µs with trace.jsonl and OTLP to loopback ` +
      `(+${(both - bare).toFixed(1)}); ${collector.spans.length} spans received`,
  );
} finally {
  await collector.close();
  await rm(dir, { recursive: true, force: true });
}
