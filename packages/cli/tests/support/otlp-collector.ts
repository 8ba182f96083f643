import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** An attribute value as OTLP/JSON writes it. */
interface AnyValue {
  readonly stringValue?: string;
  readonly intValue?: number | string;
  readonly doubleValue?: number;
  readonly boolValue?: boolean;
  readonly arrayValue?: { readonly values?: readonly AnyValue[] };
}

interface KeyValue {
  readonly key: string;
  readonly value: AnyValue;
}

/** A span as the collector received it, attributes as plain values. */
export interface ReceivedSpan {
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly attributes: Record<string, unknown>;
  readonly status: { readonly code?: number; readonly message?: string };
  readonly resource: Record<string, unknown>;
  readonly events: readonly string[];
}

/**
 * A real OTLP/HTTP collector on loopback: receives `POST /v1/traces` in OTLP/JSON (what
 * the official exporter sends by default) and keeps every span with its resource.
 */
export async function startCollector(): Promise<{
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  /** The raw request bodies, to look for what must never be sent. */
  readonly bodies: string[];
  close(): Promise<void>;
}> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      bodies.push(body);
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        response.writeHead(404).end();
        return;
      }
      for (const resourceSpans of JSON.parse(body).resourceSpans ?? []) {
        const resource = plain(resourceSpans.resource?.attributes ?? []);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              name: span.name,
              kind: span.kind,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId === "" ? undefined : span.parentSpanId,
              attributes: plain(span.attributes ?? []),
              status: span.status ?? {},
              resource,
              events: (span.events ?? []).map((event: { name: string }) => event.name),
            });
          }
        }
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port nothing listens on (bound, then released). */
export async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function plain(attributes: readonly KeyValue[]): Record<string, unknown> {
  return Object.fromEntries(attributes.map((entry) => [entry.key, plainValue(entry.value)]));
}

function plainValue(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(plainValue);
  return undefined;
}
