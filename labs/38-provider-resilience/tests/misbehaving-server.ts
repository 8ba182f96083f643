/**
 * A loopback "model API" (node:http on 127.0.0.1, a free port) that answers each
 * POST /chat/completions with the next of its scripted answers, misbehaving on purpose:
 * a 429 with Retry-After, a stream cut halfway, garbage in a stream.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export type Answer =
  /** A status with headers (Retry-After, Date) and an OpenAI-style error body. */
  | { readonly status: number; readonly headers?: Readonly<Record<string, string>> }
  /**
   * A `text/event-stream` of these `data:` payloads (objects are sent as JSON, strings as
   * they are), then `data: [DONE]` unless `cut`: `end` closes the response cleanly before
   * it, `destroy` drops the connection.
   */
  | { readonly events: readonly unknown[]; readonly cut?: "end" | "destroy" };

export interface MisbehavingServer {
  /** The base URL to give the OpenAI-compatible provider. */
  readonly url: string;
  /** How many requests it has answered. */
  requests(): number;
  close(): Promise<void>;
}

export async function startMisbehavingServer(
  answers: readonly Answer[],
): Promise<MisbehavingServer> {
  let served = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const answer = answers[served];
      served += 1;
      if (answer === undefined) {
        response.writeHead(500, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { message: "测试服务器没有更多的回答" } }));
        return;
      }
      if ("status" in answer) {
        response.writeHead(answer.status, {
          "content-type": "application/json",
          ...answer.headers,
        });
        response.end(JSON.stringify({ error: { message: "rate limited", type: "rate_limit" } }));
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (const event of answer.events) {
        response.write(`data: ${typeof event === "string" ? event : JSON.stringify(event)}\n\n`);
      }
      if (answer.cut === "destroy") response.write("", () => response.destroy());
      else if (answer.cut === "end") response.end();
      else response.end("data: [DONE]\n\n");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A chunk with a piece of the reply's text. */
export const text = (content: string) => ({ choices: [{ index: 0, delta: { content } }] });

/** The chunk that ends a reply. */
export const finished = (reason: "stop" | "tool_calls") => ({
  choices: [{ index: 0, delta: {}, finish_reason: reason }],
});

/** A chunk with one tool-call delta. */
export const toolDelta = (
  index: number,
  part: { id?: string; name?: string; arguments?: string },
) => ({
  choices: [
    {
      index: 0,
      delta: {
        tool_calls: [
          {
            index,
            ...(part.id === undefined ? {} : { id: part.id, type: "function" }),
            function: {
              ...(part.name === undefined ? {} : { name: part.name }),
              arguments: part.arguments ?? "",
            },
          },
        ],
      },
    },
  ],
});
