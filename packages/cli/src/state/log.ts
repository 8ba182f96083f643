import { type FileHandle, open, readFile } from "node:fs/promises";
import { type Redactor, redactJson } from "@coding-agent/agent-core";
import { z } from "zod";

/**
 * `state.jsonl` (docs/contracts.md §7, lesson 22): the run's transitions, append-only, one JSON
 * object a line, numbered `seq` 1, 2, … without gaps. What a resume rebuilds the run from.
 */
export const STATE_EVENT_TYPES = [
  "run_started",
  "resumed",
  "model_reply",
  "tool_intent",
  "tool_result",
  "finish_rejected",
  "hook_decision",
  "subagent_finished",
  "run_finished",
] as const;

export type StateEventType = (typeof STATE_EVENT_TYPES)[number];

const Json = z.json();

/** Each line as a resume reads it: the fields it relies on, others kept as they are. */
const StateEventSchema = z.discriminatedUnion("type", [
  z.looseObject({
    type: z.literal("run_started"),
    runId: z.string(),
    startedAt: z.string(),
    goal: z.string(),
    workspace: z.string(),
    options: z.record(z.string(), Json),
    startVersion: z.string(),
  }),
  z.looseObject({ type: z.literal("resumed"), at: z.string(), fromSeq: z.int() }),
  z.looseObject({
    type: z.literal("model_reply"),
    step: z.int().min(1),
    actions: z.array(z.record(z.string(), Json)),
    usage: z.record(z.string(), Json).optional(),
    /** The model that answered (a real provider's, the fallback's after a switch). */
    model: z.string().optional(),
    /** True when `--fallback-model` gave this reply (it is priced at the fallback's price). */
    fallback: z.boolean().optional(),
    /**
     * The reasoning that came with the reply (its text, and what the vendor wants back),
     * redacted like every line: a resume gives it back to the provider with the reply.
     */
    reasoning: z.record(z.string(), Json).optional(),
  }),
  z.looseObject({
    type: z.literal("tool_intent"),
    step: z.int().min(1),
    callId: z.string(),
    tool: z.string(),
    input: z.record(z.string(), Json),
    key: z.string(),
    /** An edit's files, each with its hash before (null: not there) and after. */
    files: z
      .array(z.object({ path: z.string(), before: z.string().nullable(), after: z.string() }))
      .optional(),
  }),
  z.looseObject({
    type: z.literal("tool_result"),
    callId: z.string(),
    ok: z.boolean(),
    value: Json.optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
    version: z.string(),
  }),
  z.looseObject({
    type: z.literal("finish_rejected"),
    step: z.int().min(1),
    reasons: z.array(z.string()),
    content: z.string(),
  }),
  /** A command hook that vetoed or rewrote (lesson 36): what a replay and a resume reuse. */
  z.looseObject({
    type: z.literal("hook_decision"),
    event: z.enum(["PreToolUse", "PostToolUse", "Stop"]),
    hook: z.string(),
    decision: z.enum(["veto", "rewrite"]),
    step: z.int().min(1),
    callId: z.string().optional(),
    message: z.string().optional(),
    input: z.record(z.string(), Json).optional(),
  }),
  /**
   * A child of `spawn_agent` ended (lesson 39): what it spent, so a resume and a replay count
   * it in the parent's usage and cost without running it again. Written before the call's
   * `tool_result`. (Logs written while a reply's children started before their calls' hooks
   * ran may have one for a call a hook vetoed, too.)
   */
  z.looseObject({
    type: z.literal("subagent_finished"),
    index: z.int().min(1),
    callId: z.string(),
    status: z.string(),
    code: z.string(),
    steps: z.int().min(0),
    toolCalls: z.int().min(0),
    usage: z.object({ inputTokens: z.int().min(0), outputTokens: z.int().min(0) }),
    costUsd: z.number().finite().min(0).nullable(),
  }),
  z.looseObject({
    type: z.literal("run_finished"),
    status: z.string(),
    code: z.string(),
  }),
]);

export type StateEvent = z.output<typeof StateEventSchema> & { readonly seq: number };

/** An event before it is numbered. */
export type StateEventBody = { readonly type: StateEventType } & Record<string, unknown>;

/** Appends numbered, redacted events to one `state.jsonl`. */
export interface StateLog {
  readonly file: string;
  /** The seq the next event gets. */
  readonly nextSeq: number;
  /**
   * Writes one line; with `sync`, resolves only once it is on disk (fsync): a
   * `tool_intent` is durable before its tool starts. Writes are kept in call order.
   */
  append(event: StateEventBody, options?: { readonly sync?: boolean }): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens `file` for appending (created if missing). `nextSeq` continues a resumed log.
 * Every event is redacted like the history (every string and key), so a key or a
 * secret the run saw never reaches the disk.
 */
export async function openStateLog(
  file: string,
  options: { readonly redact: Redactor; readonly nextSeq?: number },
): Promise<StateLog> {
  const handle: FileHandle = await open(file, "a", 0o600);
  let nextSeq = options.nextSeq ?? 1;
  let tail: Promise<void> = Promise.resolve();
  return {
    file,
    get nextSeq() {
      return nextSeq;
    },
    append(event, { sync = false } = {}) {
      const line = `${JSON.stringify(redactJson(options.redact, { seq: nextSeq, ...event }))}\n`;
      nextSeq += 1;
      const write = tail.then(async () => {
        await handle.write(line);
        if (sync) await handle.datasync();
      });
      // A failed write fails its own caller; the next write still waits its turn.
      tail = write.catch(() => {});
      return write;
    },
    async close() {
      await tail;
      await handle.close();
    },
  };
}

/** A state log as read back: its events, and a warning when a torn last line was dropped. */
export type ReadStateLog =
  | {
      readonly ok: true;
      readonly events: readonly StateEvent[];
      /** Bytes of the complete lines: a resume cuts the file here before appending. */
      readonly bytes: number;
      readonly warning?: string;
    }
  | { readonly ok: false; readonly message: string };

/**
 * Reads and checks a state log. A last line cut off by a crash mid-write (no final
 * newline, or not JSON) is dropped with a warning; any other broken line, a gap in `seq`
 * or a log that does not start with `run_started` is an error naming the line.
 */
export async function readStateLog(file: string): Promise<ReadStateLog> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, message: `读不到状态日志 ${file}（${code ?? String(error)}）` };
  }
  return parseStateLog(text, file);
}

export function parseStateLog(text: string, file = "state.jsonl"): ReadStateLog {
  const lines = text.split("\n");
  // After the last "\n" there is either nothing or a line a crash cut short.
  const tail = lines.pop() ?? "";
  let warning: string | undefined;
  if (tail.trim() !== "") warning = `${file} 最后一行不完整（写入时中断），已丢弃`;
  const events: StateEvent[] = [];
  let bytes = 0;
  for (const [index, line] of lines.entries()) {
    const where = `${file} 第 ${index + 1} 行`;
    const parsed = parseLine(line);
    if (parsed === undefined) {
      if (index === lines.length - 1 && warning === undefined) {
        warning = `${file} 最后一行不完整（写入时中断），已丢弃`;
        break;
      }
      return { ok: false, message: `${where}不是有效的状态事件` };
    }
    if (parsed.seq !== events.length + 1) {
      return {
        ok: false,
        message: `${where}：seq 应为 ${events.length + 1}，实际为 ${parsed.seq}`,
      };
    }
    events.push(parsed);
    bytes += Buffer.byteLength(line) + 1;
  }
  if (events[0]?.type !== "run_started") {
    return { ok: false, message: `${file} 不是以 run_started 开头的状态日志` };
  }
  return { ok: true, events, bytes, ...(warning === undefined ? {} : { warning }) };
}

function parseLine(line: string): StateEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const seq = (value as { seq?: unknown } | null)?.seq;
  if (typeof seq !== "number" || !Number.isSafeInteger(seq)) return undefined;
  const event = StateEventSchema.safeParse(value);
  return event.success ? ({ ...event.data, seq } as StateEvent) : undefined;
}
