import {
  boundTraceEvent,
  type Redactor,
  redactJson,
  type TraceEvent,
  type TraceSink,
} from "@coding-agent/agent-core";
import type { Context, Tracer } from "@opentelemetry/api";
import type { SpanExporter } from "@opentelemetry/sdk-trace";

/**
 * OpenTelemetry export of a run's trace events (docs/contracts.md §7), over OTLP/HTTP with the
 * official SDK, named and attributed by the OpenTelemetry GenAI semantic conventions:
 * one `invoke_agent` span a run, a `chat <model>` span per model call and an
 * `execute_tool <name>` span per tool call, both children of the run's span. The SDK is
 * loaded only when an endpoint is set: a run without it pays nothing at startup.
 */

/** The variables that turn the export on (either one), and the content switch. */
export const OTEL_ENDPOINT = "OTEL_EXPORTER_OTLP_ENDPOINT";
export const OTEL_TRACES_ENDPOINT = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
export const OTEL_CAPTURE_CONTENT = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

/** Longest wait for the collector at the run's end; the run's result never waits longer. */
export const OTEL_FLUSH_TIMEOUT_MS = 2_000;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The traces URL from the environment, as the OTLP exporter specification reads it:
 * the traces variable as it is, else the general one with `/v1/traces` appended;
 * undefined when neither is set (no export).
 */
export function otlpTracesUrl(env: Env): string | undefined {
  const traces = env[OTEL_TRACES_ENDPOINT]?.trim();
  if (traces !== undefined && traces !== "") return traces;
  const base = env[OTEL_ENDPOINT]?.trim();
  if (base === undefined || base === "") return undefined;
  return `${base.replace(/\/+$/, "")}/v1/traces`;
}

/** A run's export: the sink the loop feeds, and its bounded end. */
export interface OtelExport {
  /** Optional sink (`RunOptions.trace`): it never changes the run. */
  readonly sink: TraceSink;
  /** Ends open spans and flushes, waiting at most `OTEL_FLUSH_TIMEOUT_MS`; never rejects. */
  end(): Promise<void>;
}

/**
 * Starts the export of one run to `url`. `warn` is called at most once, for the first
 * failure (an unreachable collector, a refused export, a flush past its time): the
 * run's result and exit code never depend on the collector. Message content (the goal,
 * the model's actions, tool inputs and results) goes out only when `captureContent`,
 * redacted and bounded like the trace file.
 */
export async function startOtelExport(options: OtelExportOptions): Promise<OtelExport> {
  const [api, sdk, otlp, resources, semconv] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-trace"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/semantic-conventions"),
  ]);
  const flushTimeoutMs = options.flushTimeoutMs ?? OTEL_FLUSH_TIMEOUT_MS;
  let warned = false;
  const warnOnce = (detail: string) => {
    if (warned) return;
    warned = true;
    options.warn(`OpenTelemetry 导出失败（${options.url}）：${detail}；运行结果不受影响`);
  };
  const provider = createTracerProvider({ sdk, otlp, resources, semconv }, options, warnOnce);
  const spans: SpanState = {
    api,
    tracer: provider.getTracer("@coding-agent/cli"),
    options,
    root: undefined,
    rootContext: api.ROOT_CONTEXT,
    chats: new Map(),
    tools: new Map(),
  };
  return {
    sink: (raw) => {
      // Masked, then cut (as the trace file): a cut through a secret would leave its head.
      onSpanEvent(spans, boundTraceEvent(redactJson(options.redact, raw) as TraceEvent));
    },
    async end() {
      endCalls(spans);
      spans.root?.end();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), flushTimeoutMs + 500);
      });
      const flushed = provider.shutdown().then(
        () => "done" as const,
        (error: Error) => {
          warnOnce(options.redact(error.message));
          return "done" as const;
        },
      );
      const outcome = await Promise.race([flushed, late]);
      clearTimeout(timer);
      if (outcome === "late") warnOnce(`${flushTimeoutMs} ms 内未完成`);
    },
  };
}

/** What `startOtelExport` exports, and to where. */
export interface OtelExportOptions {
  readonly url: string;
  readonly runId: string;
  /** `gen_ai.provider.name`: the CLI's `--provider` (`openai`, `anthropic`, `fake`). */
  readonly providerName: string;
  readonly model: string;
  readonly captureContent: boolean;
  readonly redact: Redactor;
  readonly warn: (message: string) => void;
  readonly flushTimeoutMs?: number;
}

type Span = ReturnType<Tracer["startSpan"]>;

/** The spans of one run: its root, and the model and tool calls still open. */
interface SpanState {
  readonly api: typeof import("@opentelemetry/api");
  readonly tracer: Tracer;
  readonly options: OtelExportOptions;
  root: Span | undefined;
  rootContext: Context;
  readonly chats: Map<number, Span>;
  readonly tools: Map<string, Span>;
}

/** The GenAI attributes every span of the run carries. */
function common(state: SpanState) {
  return {
    "gen_ai.provider.name": state.options.providerName,
    "gen_ai.request.model": state.options.model,
  };
}

/** A child of the run's span. */
function childSpan(
  state: SpanState,
  name: string,
  kind: number,
  attributes: Record<string, string>,
) {
  return state.tracer.startSpan(name, { kind, attributes }, state.rootContext);
}

/** Marks a span failed, with the error type and (redacted) message. */
function failSpan(state: SpanState, span: Span, errorType: string, message?: string): void {
  span.setAttribute("error.type", errorType);
  span.setStatus({
    code: state.api.SpanStatusCode.ERROR,
    ...(message === undefined ? {} : { message: state.options.redact(message) }),
  });
}

/** Ends every model and tool span still open. */
function endCalls(state: SpanState): void {
  for (const span of [...state.chats.values(), ...state.tools.values()]) span.end();
  state.chats.clear();
  state.tools.clear();
}

/** One trace event, as the spans it starts, annotates or ends. */
function onSpanEvent(state: SpanState, event: TraceEvent): void {
  const { options } = state;
  const content = (text: string) => options.redact(text);
  switch (event.type) {
    case "run_started":
      startRoot(state, event.goal);
      return;
    case "model_started":
      state.chats.set(
        event.step,
        childSpan(state, `chat ${options.model}`, state.api.SpanKind.CLIENT, {
          ...common(state),
          "gen_ai.operation.name": "chat",
        }),
      );
      return;
    case "model_retry":
      state.chats.get(event.step)?.addEvent("model_retry", {
        attempt: event.attempt,
        "coding_agent.failure_class": event.failureClass,
        "coding_agent.delay_ms": event.delayMs,
      });
      return;
    case "model_completed": {
      const span = state.chats.get(event.step);
      if (span === undefined) return;
      state.chats.delete(event.step);
      describeChat(span, event, options.captureContent ? content : undefined);
      if (!event.ok)
        failSpan(state, span, "_OTHER", options.captureContent ? event.detail : undefined);
      span.end();
      return;
    }
    case "tool_started":
    case "tool_completed":
      onToolEvent(state, event);
      return;
    case "finish_rejected":
      state.root?.addEvent("finish_rejected", { "coding_agent.reasons": [...event.reasons] });
      return;
    case "compacted":
      state.root?.addEvent("compacted", {
        "coding_agent.estimated_tokens": event.estimatedTokens,
        "coding_agent.compacted_tokens": event.compactedTokens,
      });
      return;
    case "resumed":
      state.root?.addEvent("resumed", { "coding_agent.from_seq": event.fromSeq });
      return;
    case "run_finished":
      endRoot(state, event);
      return;
    default: {
      const unreachable: never = event;
      throw new TypeError(`unhandled trace event ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The run's `invoke_agent` span, the parent of every call's. */
function startRoot(state: SpanState, goal: string): void {
  const { api, options } = state;
  const root = state.tracer.startSpan("invoke_agent", {
    kind: api.SpanKind.INTERNAL,
    attributes: {
      ...common(state),
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.conversation.id": options.runId,
    },
  });
  if (options.captureContent) {
    const messages = [{ role: "user", parts: [{ type: "text", content: goal }] }];
    root.setAttribute("gen_ai.input.messages", options.redact(JSON.stringify(messages)));
  }
  state.root = root;
  state.rootContext = api.trace.setSpan(api.ROOT_CONTEXT, root);
}

/** A tool call's `execute_tool` span: started, then ended with its result. */
function onToolEvent(
  state: SpanState,
  event: Extract<TraceEvent, { type: "tool_started" | "tool_completed" }>,
): void {
  const { options } = state;
  if (event.type === "tool_started") {
    const span = childSpan(state, `execute_tool ${event.tool}`, state.api.SpanKind.INTERNAL, {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": event.tool,
      "gen_ai.tool.call.id": event.callId,
      "gen_ai.tool.type": "function",
    });
    if (options.captureContent)
      span.setAttribute("gen_ai.tool.call.arguments", options.redact(event.input));
    state.tools.set(event.callId, span);
    return;
  }
  const span = state.tools.get(event.callId);
  if (span === undefined) return;
  state.tools.delete(event.callId);
  if (options.captureContent)
    span.setAttribute("gen_ai.tool.call.result", options.redact(event.detail));
  if (!event.ok) failSpan(state, span, toolErrorCode(event.detail));
  span.end();
}

/** The run's end: every open call's span, then the run's, with its usage and status. */
function endRoot(state: SpanState, event: Extract<TraceEvent, { type: "run_finished" }>): void {
  endCalls(state);
  const { root } = state;
  if (root === undefined) return;
  describeRun(root, event);
  if (event.status !== "completed") failSpan(state, root, event.code, event.reason);
  root.end();
  state.root = undefined;
}

type Modules = {
  readonly sdk: typeof import("@opentelemetry/sdk-trace");
  readonly otlp: typeof import("@opentelemetry/exporter-trace-otlp-http");
  readonly resources: typeof import("@opentelemetry/resources");
  readonly semconv: typeof import("@opentelemetry/semantic-conventions");
};

/** The SDK's tracer provider over an OTLP/HTTP exporter whose first failure is `warnOnce`'s. */
function createTracerProvider(
  modules: Modules,
  options: { readonly url: string; readonly redact: Redactor; readonly flushTimeoutMs?: number },
  warnOnce: (detail: string) => void,
) {
  const { sdk, otlp, resources, semconv } = modules;
  const flushTimeoutMs = options.flushTimeoutMs ?? OTEL_FLUSH_TIMEOUT_MS;
  const exporter = new otlp.OTLPTraceExporter({ url: options.url, timeoutMillis: flushTimeoutMs });
  // The exporter reports each export's outcome to its callback: the first failure is the warning.
  const reporting: SpanExporter = {
    export: (spans, done) =>
      exporter.export(spans, (result) => {
        if (result.code !== 0) warnOnce(options.redact(result.error?.message ?? "导出被拒绝"));
        done(result);
      }),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush(),
  };
  return new sdk.TracerProvider({
    // Only the service's name: never the command line (the goal is content) nor the host.
    resource: resources.resourceFromAttributes({ [semconv.ATTR_SERVICE_NAME]: "coding-agent" }),
    spanProcessors: [
      new sdk.BatchSpanProcessor({ exporter: reporting, exportTimeoutMillis: flushTimeoutMs }),
    ],
  });
}

type SpanLike = {
  setAttribute(key: string, value: string | number): unknown;
};

/** A finished chat span's usage, answering model and (with content capture) its reply. */
function describeChat(
  span: SpanLike,
  event: Extract<TraceEvent, { type: "model_completed" }>,
  content: ((text: string) => string) | undefined,
): void {
  if (event.usage !== undefined) {
    span.setAttribute("gen_ai.usage.input_tokens", event.usage.inputTokens);
    span.setAttribute("gen_ai.usage.output_tokens", event.usage.outputTokens);
  }
  // The model that answered: a fallback model's name after `--fallback-model` took over.
  if (event.model !== undefined) span.setAttribute("gen_ai.response.model", event.model);
  if (event.ok && content !== undefined) {
    const messages = [{ role: "assistant", parts: [{ type: "text", content: event.detail }] }];
    span.setAttribute("gen_ai.output.messages", content(JSON.stringify(messages)));
  }
}

/** The run span's usage and end. */
function describeRun(span: SpanLike, event: Extract<TraceEvent, { type: "run_finished" }>): void {
  span.setAttribute("gen_ai.usage.input_tokens", event.usage.inputTokens);
  span.setAttribute("gen_ai.usage.output_tokens", event.usage.outputTokens);
  span.setAttribute("coding_agent.run.status", event.status);
  span.setAttribute("coding_agent.run.code", event.code);
}

/** The `code` of a failed tool's `{ ok: false, error: { code } }` text, for `error.type`. */
function toolErrorCode(detail: string): string {
  try {
    const code = (JSON.parse(detail) as { error?: { code?: unknown } }).error?.code;
    return typeof code === "string" && code !== "" ? code : "_OTHER";
  } catch {
    return "_OTHER";
  }
}
