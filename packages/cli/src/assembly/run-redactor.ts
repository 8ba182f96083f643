import { createRedactor, type Redactor } from "@coding-agent/agent-core";
import { VENDOR_PRESETS } from "@coding-agent/providers";
import type { CliEnv } from "../model-provider.ts";
import type { RunSpec } from "../run-spec.ts";

/**
 * The run's one redactor, made before anything that could print, log or prompt: the
 * environment's secrets, the real backend's key (read where the backend reads it), and the
 * values MCP servers are given under secret-looking names. Nothing made later replaces it,
 * so no closure can hold an older one.
 */
export function createRunRedactor(
  spec: RunSpec,
  env: CliEnv,
  mcpSecrets: readonly string[],
): Redactor {
  const { name } = spec.provider;
  const key = name === "fake" ? undefined : env[VENDOR_PRESETS[name].keyVariable]?.trim();
  const base = createRedactor({ env, secrets: key === undefined || key === "" ? [] : [key] });
  return withSecrets(base, mcpSecrets);
}

/** `redact` that also masks `values` (long enough to be secrets), wherever they appear. */
function withSecrets(redact: Redactor, values: readonly string[]): Redactor {
  if (values.length === 0) return redact;
  const literals = createRedactor({ env: {}, secrets: values, patterns: [] });
  return (text) => redact(literals(text));
}
