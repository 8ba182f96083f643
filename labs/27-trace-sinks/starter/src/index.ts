export { type GenAiSpan, genAiSpanOf } from "./genai-span.ts";
export { createJsonlSink, type JsonlSinkOptions } from "./jsonl-sink.ts";
