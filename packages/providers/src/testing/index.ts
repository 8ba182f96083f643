/**
 * Test helpers of `@coding-agent/providers`: a loopback server that behaves like
 * the OpenAI-compatible and Anthropic APIs, on its own entry so production code
 * never starts one by accident.
 */
export { anthropicError, checkAnthropicHeaders, checkAnthropicRequest } from "./anthropic-fake.ts";
export {
  type FakeApi,
  type FakeModelServer,
  type FakeModelServerOptions,
  type FakeRequest,
  startFakeModelServer,
} from "./fake-model-server.ts";
export {
  DEFAULT_FAKE_USAGE,
  type FakeCall,
  type FakeReply,
  type FakeTurn,
  type FakeUsage,
} from "./fake-script.ts";
export { type ApiError, checkOpenAIAuth, checkOpenAIRequest, openaiError } from "./openai-fake.ts";
export {
  assistantsOf,
  type Imitation,
  type ImitationOptions,
  type Rule,
  type RuleInput,
  startImitation,
} from "./vendor-imitation.ts";
export {
  ANTHROPIC_THINKING_RULES,
  DEEPSEEK_RULES,
  reasoningContentKept,
} from "./vendor-rules.ts";
