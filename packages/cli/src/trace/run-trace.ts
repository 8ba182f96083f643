import path from "node:path";
import type { Redactor, TraceSink } from "@coding-agent/agent-core";
import {
  continueTraceFile,
  createJsonlTraceSink,
  fileTraceWriter,
  type TraceWriter,
} from "./jsonl-sink.ts";
import {
  OTEL_CAPTURE_CONTENT,
  type OtelExport,
  otlpTracesUrl,
  startOtelExport,
} from "./otel-export.ts";

/** The trace file of a run folder. */
export const TRACE_FILE = "trace.jsonl";

/** A run's traces: the file the loop must write, and the optional OpenTelemetry export. */
export interface RunTrace {
  readonly file: string;
  /** `RunOptions.requiredTrace`: a write that fails ends the run `trace_failed`. */
  readonly requiredTrace: TraceSink;
  /** `RunOptions.trace`, when an OTLP endpoint is set. */
  readonly trace: TraceSink | undefined;
  /** Closes the file and flushes the export (bounded); never rejects. */
  end(): Promise<void>;
}

/**
 * Opens the traces of a run in `runDir`. A resumed run's `trace.jsonl` goes on after its
 * last complete line with a `resumed` event; a failure to read the old file or to write
 * that first line is returned (the run must not start: its trace could not be kept).
 */
export async function openRunTrace(options: {
  readonly runDir: string;
  readonly runId: string;
  readonly redact: Redactor;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly providerName: string;
  readonly model: string | undefined;
  readonly warn: (message: string) => void;
  /** How the lines reach the file; tests inject one that fails. */
  readonly writer?: (file: string) => TraceWriter;
  readonly resume?: { readonly startedAt: string; readonly steps: number };
}): Promise<
  { readonly ok: true; readonly trace: RunTrace } | { readonly ok: false; readonly message: string }
> {
  const file = path.join(options.runDir, TRACE_FILE);
  const writer = (options.writer ?? fileTraceWriter)(file);
  let jsonl: ReturnType<typeof createJsonlTraceSink>;
  try {
    if (options.resume === undefined) {
      jsonl = createJsonlTraceSink({ runId: options.runId, writer, redact: options.redact });
    } else {
      const continuation = await continueTraceFile(file);
      if (continuation.warning !== undefined) options.warn(continuation.warning);
      const started = Date.parse(options.resume.startedAt);
      jsonl = createJsonlTraceSink({
        runId: options.runId,
        writer,
        redact: options.redact,
        continuation,
        ...(Number.isFinite(started) ? { elapsedBeforeMs: Math.max(0, Date.now() - started) } : {}),
      });
      jsonl.resumed(options.resume.steps);
    }
  } catch (error) {
    writer.close?.();
    return { ok: false, message: `轨迹写入失败：${options.redact((error as Error).message)}` };
  }
  let otel: OtelExport | undefined;
  const url = otlpTracesUrl(options.env);
  if (url !== undefined) {
    // The SDK is loaded in here: a run without an endpoint never loads it.
    otel = await startOtelExport({
      url,
      runId: options.runId,
      providerName: options.providerName,
      model: options.model ?? options.providerName,
      captureContent: options.env[OTEL_CAPTURE_CONTENT]?.trim().toLowerCase() === "true",
      redact: options.redact,
      warn: options.warn,
    }).catch((error: Error) => {
      options.warn(`OpenTelemetry 导出未启动：${options.redact(error.message)}；运行结果不受影响`);
      return undefined;
    });
  }
  return {
    ok: true,
    trace: {
      file,
      requiredTrace: jsonl.sink,
      trace: otel?.sink,
      end: async () => {
        try {
          jsonl.close();
        } catch {
          // Every line was written or reported when written; a close cannot lose one.
        }
        await otel?.end();
      },
    },
  };
}
