/**
 * What streaming costs a reply, per chunk (lesson 38): the same reply of `CHUNKS` text
 * pieces and a tool call, fetched from the loopback fake server once as one JSON document
 * (`stream: false`) and once as the event stream the API sends (`stream: true`, written in
 * one piece, so both answers cross the socket alike and the difference is the adapter's
 * work: SSE parsing, JSON of every chunk, the assembly). The median difference divided
 * by the chunks is the overhead of one chunk, for both adapters.
 *
 *   pnpm --filter @coding-agent/providers bench
 */
import type { ModelRequest, Provider } from "@coding-agent/agent-core";
import { createAnthropicProvider, createOpenAICompatibleProvider } from "../src/index.ts";
import { renderAnthropicStream } from "../src/testing/anthropic-fake.ts";
import { type FakeTurn, startFakeModelServer } from "../src/testing/index.ts";
import { renderOpenAIStream } from "../src/testing/openai-fake.ts";

const CHUNKS = 500;
const ROUNDS = 30;
const text = "流式回复".repeat(CHUNKS); // 4 characters a piece: CHUNKS text chunks
const calls = [{ name: "echo", id: "call_bench", input: { text: "x".repeat(200) } }];
const request: ModelRequest = {
  task: { goal: "bench" },
  messages: [{ role: "user", content: "bench" }],
  step: 1,
  tools: [],
};
const reply = {
  sequence: 1,
  model: "bench",
  text,
  calls,
  usage: { inputTokens: 10, outputTokens: 10 },
  nextCallId: () => "call_bench",
};
const streams = {
  openai: renderOpenAIStream(reply, true).join(""),
  anthropic: renderAnthropicStream(reply).join(""),
};

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function timed(
  make: (base: { openai: string; anthropic: string }) => Provider,
  turn: FakeTurn,
) {
  const times: number[] = [];
  const server = await startFakeModelServer({
    script: Array.from({ length: ROUNDS + 3 }, () => turn),
  });
  const provider = make({ openai: server.openaiBaseUrl, anthropic: server.anthropicBaseUrl });
  for (let round = 0; round < ROUNDS + 3; round += 1) {
    const started = performance.now();
    await provider.complete(request, new AbortController().signal);
    // The first rounds warm up the JIT and the connection.
    if (round >= 3) times.push(performance.now() - started);
  }
  await server.close();
  return median(times);
}

for (const api of ["openai", "anthropic"] as const) {
  const create = (stream: boolean) => (base: { openai: string; anthropic: string }) =>
    api === "openai"
      ? createOpenAICompatibleProvider({ model: "bench", baseUrl: base.openai, stream })
      : createAnthropicProvider({ model: "bench", baseUrl: base.anthropic, stream });
  const plain = await timed(create(false), { text, calls, usage: reply.usage });
  const streamed = await timed(create(true), { rawSse: streams[api] });
  const perChunk = ((streamed - plain) * 1000) / CHUNKS;
  console.log(
    `${api.padEnd(9)} plain ${plain.toFixed(2)} ms · streamed ${streamed.toFixed(2)} ms · ${CHUNKS} chunks · overhead ${perChunk.toFixed(1)} µs per chunk`,
  );
}
