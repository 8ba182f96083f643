import type { Provider } from "@coding-agent/agent-core";
import {
  createAnthropicProvider,
  createOpenAICompatibleProvider,
  InvalidProviderOptionsError,
  type ProviderOptions,
  type ReasoningEffort,
  VENDOR_PRESETS,
} from "@coding-agent/providers";
import type { ProviderName } from "./args.ts";

/** The environment the CLI reads keys and base URLs from. */
export type CliEnv = Readonly<Record<string, string | undefined>>;

/** A real model backend, ready: the provider, the key to mask, and where it talks to. */
export type ModelBackend =
  | {
      readonly ok: true;
      readonly provider: Provider;
      readonly apiKey: string;
      /** The base URL without any credentials in it, safe to print. */
      readonly endpoint: string;
    }
  | { readonly ok: false; readonly message: string };

/**
 * Builds the provider for `--provider <vendor>` (see `VENDOR_PRESETS`): the model from
 * `--model`, the key only from the vendor's environment variable (never a flag), the base
 * URL from `--base-url`, else the vendor's variable, else the vendor's documented one. A
 * missing model or key, or a bad URL, is a usage mistake named in Chinese.
 */
export function createModelBackend(
  choice: {
    readonly name: Exclude<ProviderName, "fake">;
    readonly model?: string;
    readonly baseUrl?: string;
    /** `--api-key-env`: the variable holding the key, instead of the vendor's. */
    readonly keyVariable?: string;
    readonly reasoningEffort?: ReasoningEffort;
  },
  env: CliEnv,
  /** The system prompt of each request (see `createSystemPrompt`). */
  system?: ProviderOptions["system"],
  /** Gets the reply text and reasoning as they stream in (see `createTextEcho`). */
  echo?: Pick<ProviderOptions, "onText" | "onReasoning">,
): ModelBackend {
  const backend = VENDOR_PRESETS[choice.name];
  if (choice.model === undefined) {
    return { ok: false, message: `--provider ${choice.name} 需要 --model <模型名>` };
  }
  const keyVariable = choice.keyVariable ?? backend.keyVariable;
  const apiKey = env[keyVariable]?.trim() ?? "";
  if (apiKey === "") {
    return {
      ok: false,
      message: `--provider ${choice.name} 需要环境变量 ${keyVariable}（密钥只从环境变量读取；本地服务不校验密钥时可设为任意值）`,
    };
  }
  const baseUrl = choice.baseUrl ?? nonEmpty(env[backend.baseUrlVariable]) ?? backend.baseUrl;
  try {
    const options: ProviderOptions = {
      model: choice.model,
      apiKey,
      baseUrl,
      ...(system === undefined ? {} : { system }),
      ...(echo?.onText === undefined ? {} : { onText: echo.onText }),
      ...(echo?.onReasoning === undefined ? {} : { onReasoning: echo.onReasoning }),
      ...(choice.reasoningEffort === undefined ? {} : { reasoningEffort: choice.reasoningEffort }),
    };
    const provider =
      backend.wire === "anthropic"
        ? createAnthropicProvider(options)
        : createOpenAICompatibleProvider({ ...options, vendor: backend.name });
    return { ok: true, provider, apiKey, endpoint: withoutCredentials(baseUrl) };
  } catch (error) {
    if (!(error instanceof InvalidProviderOptionsError)) throw error;
    const source = choice.baseUrl !== undefined ? "--base-url" : backend.baseUrlVariable;
    return { ok: false, message: `${source} 无效：${error.message}` };
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

/** A URL as safe to print: any user name or password in it removed. */
function withoutCredentials(url: string): string {
  const parsed = new URL(url);
  parsed.username = "";
  parsed.password = "";
  return parsed.toString().replace(/\/$/, "");
}
