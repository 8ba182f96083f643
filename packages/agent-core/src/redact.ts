/**
 * Redaction of secrets in text, applied before anything reaches the model or a
 * trace. Patterns cover the key and token shapes of common providers, private key
 * blocks, bearer tokens, secret-looking JSON fields, and the values of environment
 * variables whose names look secret.
 */

/** One secret shape: a name used in the replacement marker and a global pattern. */
export interface SecretPattern {
  readonly name: string;
  readonly pattern: RegExp;
}

/** Secret shapes recognised by default. Order matters: more specific shapes first. */
export const DEFAULT_SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    name: "private-key",
    pattern:
      /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|$)/g,
  },
  { name: "anthropic-key", pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
  { name: "openai-key", pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  {
    name: "github-token",
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g,
  },
  { name: "aws-access-key", pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { name: "google-api-key", pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { name: "slack-token", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { name: "stripe-key", pattern: /\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}/g },
  { name: "jwt", pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { name: "bearer-token", pattern: /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi },
  {
    name: "secret-field",
    // "password": "…" in JSON, or API_TOKEN=… / client_secret: … in text. The name must
    // end with the secret word, so `inputTokens` or `tokenizer` are left alone.
    pattern:
      /(["']?\b[A-Za-z0-9_-]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|authorization|credentials?)["']?\s*[:=]\s*)("(?:[^"\\]|\\.)*"|'[^']*'|[^\s"',;}&]{4,})/gi,
  },
];

/** Names of environment variables whose values are treated as secrets. */
export const SECRET_ENV_NAME =
  /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE|AUTH|COOKIE|SESSION)/i;

/** Shortest environment value worth redacting (shorter ones would mask ordinary words). */
const MIN_ENV_SECRET_LENGTH = 6;

/** Options for `createRedactor`. */
export interface RedactorOptions {
  /** Environment whose secret-looking variables are masked by value; `process.env` by default. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Extra literal values to mask wherever they appear. */
  readonly secrets?: readonly string[];
  /** Replaces the default patterns. */
  readonly patterns?: readonly SecretPattern[];
}

/** Replaces every secret in a text with a `[REDACTED:kind]` marker. Never throws. */
export type Redactor = (text: string) => string;

/**
 * Builds a redactor. Environment values are captured once, here, so a run uses
 * one consistent set; literal values are masked before patterns, longest first,
 * so a secret that contains another is masked whole.
 */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const env = options.env ?? process.env;
  const literals = new Set<string>(options.secrets ?? []);
  for (const [name, value] of Object.entries(env)) {
    if (
      value !== undefined &&
      value.length >= MIN_ENV_SECRET_LENGTH &&
      SECRET_ENV_NAME.test(name)
    ) {
      literals.add(value);
    }
  }
  const literalPattern =
    literals.size === 0
      ? undefined
      : new RegExp(
          [...literals]
            .filter((value) => value.length > 0)
            .sort((a, b) => b.length - a.length)
            .map(escapeRegExp)
            .join("|"),
          "g",
        );
  const patterns = options.patterns ?? DEFAULT_SECRET_PATTERNS;
  // One case-insensitive scan over every shape: most texts hold no secret, and
  // one failed test is much cheaper than a dozen replace passes. It only filters;
  // the precise patterns below do the masking.
  const anySecret = new RegExp(
    [
      ...(literalPattern === undefined ? [] : [literalPattern.source]),
      ...patterns.map((p) => p.pattern.source),
    ].join("|"),
    "i",
  );

  return (text) => {
    if (!anySecret.test(text)) return text;
    let out = literalPattern === undefined ? text : text.replace(literalPattern, "[REDACTED:env]");
    for (const { name, pattern } of patterns) {
      out = out.replace(pattern, (match: string, ...groups: unknown[]) =>
        replacement(name, match, groups),
      );
    }
    return out;
  };
}

let cachedEnvironment: { readonly key: string; readonly redactor: Redactor } | undefined;

/**
 * The default redactor as the environment is now: default patterns plus the values
 * of secret-looking variables. Call it once per run, so a key set or rotated after
 * an earlier run is still masked. It reads only the variable names and the few
 * secret-looking values, and reuses the compiled redactor while those are unchanged.
 */
export function redactorForEnvironment(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Redactor {
  const secrets: Record<string, string> = {};
  let key = "";
  for (const name of Object.keys(env)) {
    if (!SECRET_ENV_NAME.test(name)) continue;
    const value = env[name];
    if (value === undefined || value.length < MIN_ENV_SECRET_LENGTH) continue;
    secrets[name] = value;
    key += `${name}\u0000${value}\u0000`;
  }
  if (cachedEnvironment?.key !== key) {
    cachedEnvironment = { key, redactor: createRedactor({ env: secrets }) };
  }
  return cachedEnvironment.redactor;
}

function replacement(name: string, match: string, groups: readonly unknown[]): string {
  if (name === "secret-field" && typeof groups[0] === "string") {
    // Keep the field name so the model still knows which field was there.
    return `${groups[0]}"[REDACTED:${name}]"`;
  }
  if (name === "bearer-token" && typeof groups[0] === "string") {
    return `${groups[0]} [REDACTED:${name}]`;
  }
  if (match.includes("[REDACTED:")) return match;
  return `[REDACTED:${name}]`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
