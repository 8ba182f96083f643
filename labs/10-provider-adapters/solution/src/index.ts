// The runtime and the loopback server this lesson's piece plugs into, re-exported so the tests import one place.
export { type Message, runAgent, type ToolSet } from "@coding-agent/agent-core";
export { type FakeTurn, startFakeModelServer } from "@coding-agent/providers/testing";
export { fromChatCompletion, toChatMessages } from "./chat-messages.ts";
export { type ChatProviderOptions, createChatProvider } from "./chat-provider.ts";
export { type ChatCompletion, ChatCompletionSchema, type ChatMessage } from "./chat-wire.ts";
