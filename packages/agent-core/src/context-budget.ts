import { type ArtifactStore, artifactMainField, artifactText } from "./artifacts.ts";
import { InvalidLimitsError } from "./errors.ts";
import type { BeforeModelCallDecision, Compaction, RunExtension } from "./extension.ts";
import type { Message, ToolResultMessage } from "./messages.ts";
import { createModelRequest, type ModelRequest } from "./provider.ts";
import type { Redactor } from "./redact.ts";
import { DEFAULT_MAX_OBSERVATION_CHARS, stableStringify } from "./serialize.ts";
import type { CompactedResult } from "./trace.ts";

/** Options of `createContextBudget`. */
export interface ContextBudgetOptions {
  /** Tokens a request may take, as `estimate` counts them (`--max-context-tokens`). */
  readonly maxContextTokens?: number;
  /**
   * Tokens of a request as the provider will send it (system prompt and tool schemas
   * included): a real tokenizer where there is one, a conservative estimate otherwise.
   * Required with `maxContextTokens`.
   */
  readonly estimate?: (request: ModelRequest) => number;
  /** Where whole outputs and compacted results go. */
  readonly artifacts: ArtifactStore;
  /** The run's redactor (`RunOptions.redact`): an artifact holds no unmasked secret. */
  readonly redact: Redactor;
  /** The run's `maxObservationChars`: a larger output is stored whole as an artifact. */
  readonly maxObservationChars?: number;
  /** Which results to compact; `chooseCompaction` by default (lesson 25 writes its own). */
  readonly choose?: (question: CompactionQuestion) => CompactionChoice;
}

/** What `chooseCompaction` is asked about one request over its budget, or not. */
export interface CompactionQuestion {
  /** The request's history, oldest first. */
  readonly messages: readonly Message[];
  /** Call ids whose results earlier requests compacted: they stay compacted. */
  readonly compacted: ReadonlySet<string>;
  /** Tokens of the request with the results of these call ids, and the compacted ones, as stubs. */
  readonly tokensWith: (callIds: readonly string[]) => number;
  /** Tokens the request may take (`--max-context-tokens`). */
  readonly maxContextTokens: number;
}

/** The results to compact now, oldest first (none: it fits), or: nothing makes it fit. */
export type CompactionChoice =
  | { readonly kind: "fits"; readonly callIds: readonly string[] }
  | { readonly kind: "exhausted"; readonly tokens: number };

/**
 * Chooses which tool results to replace by stubs so that a request fits its budget: the
 * fewest oldest ones, never those of the last two model replies (a reply: its assistant
 * messages in a row, then their results), never a message that is not a tool result
 * (the goal, `finish_rejected` reasons). `exhausted`, with the tokens it would still
 * take, when it does not fit with every other result compacted.
 */
export function chooseCompaction(question: CompactionQuestion): CompactionChoice {
  const { messages, compacted, tokensWith, maxContextTokens } = question;
  const replyOf: number[] = [];
  let reply = 0;
  for (const [index, message] of messages.entries()) {
    if (message.role === "assistant" && messages[index - 1]?.role !== "assistant") reply += 1;
    replyOf.push(reply);
  }
  const candidates = messages.flatMap((message, index) =>
    message.role === "tool" &&
    (replyOf[index] as number) <= reply - 2 &&
    !compacted.has(message.callId)
      ? [message.callId]
      : [],
  );
  if (tokensWith([]) <= maxContextTokens) return { kind: "fits", callIds: [] };
  const floor = tokensWith(candidates);
  if (floor > maxContextTokens) return { kind: "exhausted", tokens: floor };
  // The fewest oldest results that make it fit (fewer stubs, more of the story kept);
  // each one more only makes the request smaller, so the first count that fits is found
  // by halving.
  let low = 1;
  let high = candidates.length;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (tokensWith(candidates.slice(0, middle)) <= maxContextTokens) high = middle;
    else low = middle + 1;
  }
  return { kind: "fits", callIds: candidates.slice(0, low) };
}

/**
 * Context budget (lesson 25) as a `RunExtension`. After a tool call: an output longer
 * than `maxObservationChars` is stored whole (redacted, its text with its line breaks,
 * see `artifactText`) and the model sees its head, its tail and the artifact id.
 * Before a model call over `maxContextTokens`: the tool results `choose`
 * (`chooseCompaction`: the fewest oldest that make it fit) are replaced by stubs naming
 * the call and an artifact holding their text; a result once compacted stays compacted (the requests only shrink, each
 * text is stored once). Never compacted: the goal (the system prompt is the provider's),
 * the last two model replies with their tool results, and `finish_rejected` reasons
 * (the only messages it replaces are tool results). If the request does not fit with
 * every other result compacted, the run stops `context_exhausted`. Only a request that
 * is over budget is copied (O(history) then), so a run under budget pays one estimate a step.
 */
export function createContextBudget(options: ContextBudgetOptions): RunExtension {
  const maxChars = options.maxObservationChars ?? DEFAULT_MAX_OBSERVATION_CHARS;
  const budget = options.maxContextTokens;
  const { estimate, artifacts, redact } = options;
  const choose = options.choose ?? chooseCompaction;
  checkBudgetOptions(budget, estimate);
  const state: BudgetState = { values: new Map(), stored: new Map(), compacted: new Set() };
  const { values, stored } = state;

  const store = async (message: ToolResultMessage): Promise<string> => {
    const known = stored.get(message.callId);
    if (known !== undefined) return known;
    const value = values.get(message.callId);
    const text = value === undefined ? message.content : redact(artifactText(value));
    const id = await artifacts.put(text, { callId: message.callId, tool: message.tool });
    stored.set(message.callId, id);
    values.delete(message.callId);
    return id;
  };

  const extension: RunExtension = {
    name: "context-budget",
    async afterToolCall(call, result) {
      if (!result.ok) return undefined;
      const { value } = result;
      const whole = redact(typeof value === "string" ? value : stableStringify(value));
      if (whole.length <= maxChars) {
        if (budget !== undefined) values.set(call.callId, value);
        return undefined;
      }
      const text = redact(artifactText(value));
      const id = await artifacts.put(text, { callId: call.callId, tool: call.tool });
      stored.set(call.callId, id);
      const field = artifactMainField(value);
      // Head and tail of the output itself (stdout, a file's content), not of the fields after it.
      const main =
        field === undefined ? text : redact((value as Record<string, string>)[field] as string);
      const shown = { text: main, totalChars: text.length, totalLines: text.split("\n").length };
      return { kind: "replace", value: preview(shown, id, field, maxChars) };
    },
  };
  if (budget === undefined || estimate === undefined) return extension;

  const settings: FitSettings = { budget, estimate, choose, store };
  return {
    ...extension,
    beforeModelCall: (request) => fitToBudget(request, settings, state),
  };
}

/** Throws `InvalidLimitsError` for a budget that is not a positive integer or has no estimate. */
function checkBudgetOptions(
  budget: number | undefined,
  estimate: ((request: ModelRequest) => number) | undefined,
): void {
  if (budget !== undefined && (!Number.isSafeInteger(budget) || budget < 1)) {
    throw new InvalidLimitsError(`invalid maxContextTokens: an integer ≥ 1, got ${budget}`);
  }
  if (budget !== undefined && estimate === undefined) {
    throw new InvalidLimitsError("maxContextTokens needs an estimate function");
  }
}

/** What one context budget remembers across the steps of its run. */
interface BudgetState {
  /** Values of results not stored yet, for the text of their artifact if compacted. */
  readonly values: Map<string, unknown>;
  /** Artifacts already written, by call id. */
  readonly stored: Map<string, string>;
  /** Results compacted so far, oldest first. */
  readonly compacted: Set<string>;
}

/** What `fitToBudget` is given by a context budget that has `maxContextTokens`. */
interface FitSettings {
  readonly budget: number;
  readonly estimate: (request: ModelRequest) => number;
  readonly choose: (question: CompactionQuestion) => CompactionChoice;
  /** Stores a result's text as an artifact (once) and gives the artifact id. */
  readonly store: (message: ToolResultMessage) => Promise<string>;
}

/**
 * The decision before one model call: nothing when the request fits and nothing was
 * compacted before, a rewrite with the earlier stubs and those `choose` picks now, or a
 * stop when it cannot fit. The choice is made on placeholder ids first; when the real
 * artifact ids make the request longer than estimated, `choose` is asked again with the
 * results already taken counted as compacted.
 */
async function fitToBudget(
  request: ModelRequest,
  settings: FitSettings,
  state: BudgetState,
): Promise<BeforeModelCallDecision | undefined> {
  const { budget, estimate, choose, store } = settings;
  const { stored, compacted } = state;
  const results = new Map(
    request.messages.flatMap((m) => (m.role === "tool" ? [[m.callId, m] as const] : [])),
  );
  const build = (fresh: readonly string[], ids: ReadonlyMap<string, string>) =>
    withStubs(request, new Set([...compacted, ...fresh]), ids);
  // Stubs of results not stored yet name a placeholder id.
  const placeholders = (fresh: readonly string[]) =>
    new Map([...stored, ...fresh.map((id) => [id, stored.get(id) ?? `pending-${id}`] as const)]);
  const before = estimate(request);
  const tokensWith = (base: readonly string[]) => (extra: readonly string[]) => {
    const fresh = [...base, ...extra];
    if (fresh.length === 0 && compacted.size === 0) return before;
    return estimate(build(fresh, placeholders(fresh)));
  };
  const ask = (base: readonly string[]) =>
    choose({
      messages: request.messages,
      compacted: new Set([...compacted, ...base]),
      tokensWith: tokensWith(base),
      maxContextTokens: budget,
    });

  let choice = ask([]);
  if (choice.kind === "exhausted") return exhausted(budget, choice.tokens);
  if (choice.callIds.length === 0) {
    if (compacted.size === 0) return undefined;
    const rewritten = build([], stored);
    const step = {
      estimatedTokens: before,
      compactedTokens: tokensWith([])([]),
      maxContextTokens: budget,
      results: [],
    };
    return rewrite(rewritten, step, compacted);
  }
  let fresh: readonly string[] = [];
  while (choice.kind === "fits") {
    // Only results of this request not compacted yet: a choice of nothing new is not a fit.
    const taken = new Set([...compacted, ...fresh]);
    const more = choice.callIds.filter((id) => results.has(id) && !taken.has(id));
    if (more.length === 0) break;
    fresh = [...fresh, ...more];
    for (const callId of fresh) {
      const message = results.get(callId);
      if (message !== undefined) await store(message);
    }
    const compactedRequest = build(fresh, stored);
    const after = estimate(compactedRequest);
    if (after <= budget) {
      for (const callId of fresh) compacted.add(callId);
      // Every fresh id is a result of this request (`more` above), stored just now.
      const done = fresh.map((callId): CompactedResult => {
        const { tool } = results.get(callId) as ToolResultMessage;
        return { callId, tool, artifactId: stored.get(callId) as string };
      });
      const step = { estimatedTokens: before, compactedTokens: after, maxContextTokens: budget };
      return rewrite(compactedRequest, { ...step, results: done }, compacted);
    }
    // Real ids may be longer than the placeholders: ask again with these compacted.
    choice = ask(fresh);
  }
  return exhausted(budget, choice.kind === "exhausted" ? choice.tokens : before);
}

/** The rewrite decision for `request`; `totalCompacted` counts every result compacted so far. */
function rewrite(
  request: ModelRequest,
  step: Omit<Compaction, "totalCompacted">,
  compacted: ReadonlySet<string>,
): BeforeModelCallDecision {
  return { kind: "rewrite", request, compaction: { ...step, totalCompacted: compacted.size } };
}

function exhausted(budget: number, floor: number): BeforeModelCallDecision {
  const reason = `上下文预算 ${budget} token 放不下不能压缩的部分（系统提示、目标、最近两轮模型回复及其工具结果、finish_rejected 理由）：其余工具结果全部压缩后估计仍有 ${floor} token`;
  return { kind: "stop", code: "context_exhausted", reason };
}

/** `request` with the results of `callIds` as stubs naming their artifacts. */
function withStubs(
  request: ModelRequest,
  callIds: ReadonlySet<string>,
  ids: ReadonlyMap<string, string>,
): ModelRequest {
  const messages = request.messages.map((message): Message => {
    if (message.role !== "tool" || !callIds.has(message.callId)) return message;
    // Only stored (or placeholder) ids are ever compacted.
    const id = ids.get(message.callId) as string;
    const content = `[为节省上下文已压缩] ${message.tool} 调用 ${message.callId} 的结果已存为 artifact ${id}；需要时用 read_artifact {"id":"${id}"} 读取`;
    const { callId, tool } = message;
    if (message.ok) {
      const length = content.length;
      return Object.freeze({
        role: "tool",
        callId,
        tool,
        ok: true,
        content,
        truncated: false,
        originalLength: length,
      });
    }
    const error = Object.freeze({ code: message.error.code, message: content });
    return Object.freeze({ role: "tool", callId, tool, ok: false, error, content });
  });
  return createModelRequest({ ...request, messages: Object.freeze(messages) });
}

/**
 * What the model sees of an output stored whole: the artifact id, its size, head and
 * tail of its main text as long as the whole fits `maxChars` once serialized, and how
 * to read on.
 */
function preview(
  shown: { readonly text: string; readonly totalChars: number; readonly totalLines: number },
  id: string,
  field: string | undefined,
  maxChars: number,
): unknown {
  const { text, totalChars, totalLines } = shown;
  const note = `完整输出（${totalChars} 字符，${totalLines} 行${field === undefined ? "" : `，开头是 ${field}，head/tail 取自它`}）已存为 artifact ${id}：用 read_artifact {"id":"${id}","startLine":1,"endLine":100} 分页读取`;
  const shaped = (keep: number) => {
    const head = sliceWhole(text, 0, Math.ceil(keep / 2));
    const tail = sliceWhole(text, text.length - Math.floor(keep / 2), text.length);
    return { artifact: id, head, note, tail, totalChars, totalLines, truncated: true };
  };
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (stableStringify(shaped(middle)).length <= maxChars) low = middle;
    else high = middle - 1;
  }
  return shaped(low);
}

/** `text.slice(start, end)` without half a surrogate pair at either edge. */
function sliceWhole(text: string, start: number, end: number): string {
  let from = Math.max(0, start);
  let to = Math.max(from, end);
  if (from > 0 && isLow(text.charCodeAt(from))) from += 1;
  if (to < text.length && isLow(text.charCodeAt(to))) to -= 1;
  return text.slice(from, Math.max(from, to));
}

function isLow(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
