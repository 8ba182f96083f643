/** One secret shape: a name for the marker, and a global pattern whose group 1 is kept. */
export interface SecretPattern {
  readonly name: string;
  /** Global. Group 1 is the context kept in front of the secret (may be empty). */
  readonly pattern: RegExp;
}

/**
 * The shapes masked by default, most specific first (`sk-ant-` before `sk-`).
 * Each one is anchored on a prefix or on the name next to the value, so ordinary
 * hex (a git SHA, a hash), UUIDs and short base64 are left alone.
 */
export const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    name: "private-key",
    pattern:
      /()-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----/g,
  },
  { name: "anthropic-key", pattern: /()\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: "openai-key", pattern: /()\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}/g },
  {
    name: "github-token",
    pattern: /()\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22,})/g,
  },
  { name: "aws-access-key", pattern: /()\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
  {
    name: "aws-secret-key",
    // 40 characters of base64 alone could be anything (a git SHA is 40 hex): only
    // the name next to it makes it an AWS secret.
    pattern:
      /(\baws_?secret_?access_?key["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])/gi,
  },
  { name: "slack-token", pattern: /()\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { name: "jwt", pattern: /()\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g },
  { name: "url-credentials", pattern: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+(?=@)/gi },
  {
    name: "authorization",
    pattern: /(\bAuthorization["']?\s*[:=]\s*["']?(?:Bearer |Basic |Token )?)[^\s"',;]+/gi,
  },
];

/** Names of environment variables whose values are secrets (`OPENAI_API_KEY`, `DB_PASSWORD`…). */
export const SECRET_ENV_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION)/i;

/** Shorter values are not masked: `AUTH_MODE=on` would mask every "on". */
export const MIN_SECRET_LENGTH = 8;

/** Options for `createRedactor`. */
export interface RedactorOptions {
  /** The environment whose secret-looking variables are masked by value. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Extra literal values to mask wherever they appear. */
  readonly secrets?: readonly string[];
}

/** Replaces every secret in a text with `[REDACTED:kind]`. */
export type Redactor = (text: string) => string;

/**
 * Builds a redactor. The values to mask by name (secret env values, extra
 * secrets) are collected once, here, longest first, so a secret that contains
 * another is masked whole.
 */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const literals = secretValues(options);
  return (text) => {
    // #region exercise
    // 解答：先按值遮蔽（环境变量里的密钥可能是任何形状），再按形状遮蔽；每处都要换掉，不只第一处。
    let out = text;
    for (const value of literals) {
      out = out.replaceAll(value, "[REDACTED:env]");
    }
    for (const { name, pattern } of SECRET_PATTERNS) {
      out = out.replace(pattern, (_match, kept: string) => `${kept}[REDACTED:${name}]`);
    }
    return out;
    // #endregion exercise
  };
}

/** The literal values to mask: secret-looking env values and extra secrets, longest first. */
export function secretValues(options: RedactorOptions): string[] {
  const values = new Set(options.secrets ?? []);
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value !== undefined && SECRET_ENV_NAME.test(name)) values.add(value);
  }
  return [...values]
    .filter((value) => value.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
}
