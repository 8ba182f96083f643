export { fromChatCompletion, toChatMessages } from "./chat-messages.ts";
export { type ChatProviderOptions, createChatProvider } from "./chat-provider.ts";
export { type ChatCompletion, ChatCompletionSchema, type ChatMessage } from "./chat-wire.ts";
