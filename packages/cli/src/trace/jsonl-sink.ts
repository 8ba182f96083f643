import { closeSync, fstatSync, openSync, writeSync } from "node:fs";
import { readFile, stat, truncate } from "node:fs/promises";
import {
  boundTraceEvent,
  type Redactor,
  redactJson,
  type TraceEvent,
  type TraceEventBody,
  type TraceSink,
} from "@coding-agent/agent-core";

/**
 * Writes one line of `trace.jsonl`, synchronously: a write that fails throws before the
 * loop goes on, so the run stops `trace_failed` at its next phase boundary (see
 * `RunOptions.requiredTrace`). Tests inject one that fails.
 */
export interface TraceWriter {
  append(line: string): void;
  /** Releases the file; nothing is appended after it. */
  close?(): void;
}

/**
 * Appends to `file` (created private to the user, opened at the first line, so a folder
 * that cannot hold it is a failed write). After each line the file must still have a
 * name: a run folder removed or a file replaced mid-run would otherwise swallow every
 * later line without an error, so that is a failed write too (`ENOENT`).
 */
export function fileTraceWriter(file: string): TraceWriter {
  let fd: number | undefined;
  return {
    append(line) {
      fd ??= openSync(file, "a", 0o600);
      const bytes = Buffer.from(line, "utf8");
      let written = 0;
      while (written < bytes.length) {
        written += writeSync(fd, bytes, written, bytes.length - written);
      }
      if (fstatSync(fd).nlink === 0) {
        throw Object.assign(new Error(`ENOENT: ${file} 已被删除，轨迹无法继续写入`), {
          code: "ENOENT",
        });
      }
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

/** Where a resumed run's trace goes on: after the last complete line of the file. */
export interface TraceContinuation {
  /** The seq of the file's last complete line (0 for a missing or empty file). */
  readonly lastSeq: number;
  readonly lastAtMs: number;
  /** Set when a torn last line (a crash mid-write) was cut off. */
  readonly warning?: string;
}

/**
 * Reads an existing `trace.jsonl` before a resume appends to it: the last complete line's
 * seq and time. A torn last line is cut off (so the next line starts on its own), with a
 * warning; a line that does not parse before it ends the reading there too, the file
 * cut to the lines before it, so the seq goes on without a gap from what is left.
 */
export async function continueTraceFile(file: string): Promise<TraceContinuation> {
  let text: string;
  try {
    // Never read a device or a pipe put in its place (`/dev/full` reads forever).
    if (!(await stat(file)).isFile()) throw new Error(`${file} 不是普通文件`);
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { lastSeq: 0, lastAtMs: 0 };
    throw error;
  }
  let lastSeq = 0;
  let lastAtMs = 0;
  let bytes = 0;
  let warning: string | undefined;
  const lines = text.split("\n");
  const tail = lines.pop() ?? "";
  for (const line of lines) {
    const parsed = parseTraceLine(line);
    if (parsed === undefined || parsed.seq !== lastSeq + 1) {
      warning = `trace.jsonl 第 ${lastSeq + 1} 行无法读取（缺号或不是轨迹事件），已从这一行起截断再续写`;
      break;
    }
    lastSeq = parsed.seq;
    lastAtMs = parsed.atMs;
    bytes += Buffer.byteLength(line) + 1;
  }
  if (warning === undefined && tail !== "") {
    warning = "trace.jsonl 最后一行不完整（写入时中断），已丢弃";
  }
  if (bytes !== Buffer.byteLength(text)) await truncate(file, bytes);
  return { lastSeq, lastAtMs, ...(warning === undefined ? {} : { warning }) };
}

function parseTraceLine(line: string): { seq: number; atMs: number } | undefined {
  try {
    const value = JSON.parse(line) as { seq?: unknown; atMs?: unknown } | null;
    if (typeof value?.seq !== "number" || !Number.isSafeInteger(value.seq)) return undefined;
    return { seq: value.seq, atMs: typeof value.atMs === "number" ? value.atMs : 0 };
  } catch {
    return undefined;
  }
}

/** The run's `trace.jsonl` sink and how to write an event the loop does not emit. */
export interface JsonlTraceSink {
  /** For `RunOptions.requiredTrace`: throws when its line could not be written. */
  readonly sink: TraceSink;
  /** Writes `resumed` before a resumed run's own events (throws like `sink`). */
  resumed(steps: number): void;
  /** Closes the file once the run has ended. */
  close(): void;
}

/**
 * The sink of `trace.jsonl` (docs/contracts.md §7): each event as one line `{ seq, atMs, runId,
 * type, … }`, redacted once more on the way out (the loop builds events from redacted
 * texts; this is the last line of defence for a key that reached a field some other way),
 * then bounded (`boundTraceEvent`: no text field over 4,000 characters, however large the
 * observation). In that order: a secret cut in two before masking would leave its head. A resumed run's lines go on from `continuation`: seq after its last
 * line, times from the run's start (`elapsedBeforeMs`), never before its last line.
 */
export function createJsonlTraceSink(options: {
  readonly runId: string;
  readonly writer: TraceWriter;
  readonly redact: Redactor;
  readonly continuation?: TraceContinuation;
  /** How long ago the run first started (a resume), so times go on from there. */
  readonly elapsedBeforeMs?: number;
}): JsonlTraceSink {
  const { runId, writer, redact } = options;
  const seqBase = options.continuation?.lastSeq ?? 0;
  const atBase = Math.max(options.continuation?.lastAtMs ?? 0, options.elapsedBeforeMs ?? 0);
  // The `resumed` line takes one seq before the loop's events.
  let written = 0;
  const write = (body: TraceEventBody, atMs: number) => {
    const seq = seqBase + written + 1;
    // Masked before it is cut: a cut through a secret would leave a piece no pattern knows.
    const event = redactJson(redact, { seq, atMs: Math.round(atBase + atMs), runId, ...body });
    writer.append(`${JSON.stringify(boundTraceEvent(event as object))}\n`);
    written += 1;
  };
  return {
    sink(event: TraceEvent) {
      const { seq: _seq, atMs, ...body } = event;
      write(body as TraceEventBody, atMs);
    },
    resumed(steps) {
      write({ type: "resumed", fromSeq: seqBase, steps }, 0);
    },
    close() {
      writer.close?.();
    },
  };
}
