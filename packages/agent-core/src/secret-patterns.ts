/**
 * The secret shapes `createRedactor` recognises by default (see `redact.ts`): provider keys
 * and tokens, JWTs, private key blocks and pages of them, credentials in URLs, authorization
 * headers, secret-looking fields and assignments.
 */

/** One secret shape: a name used in the replacement marker and a global pattern. */
export interface SecretPattern {
  readonly name: string;
  /**
   * Global (`g`), optionally case-insensitive (`i`). A first capture group, when
   * present, is a prefix kept in front of the marker (a field name, a scheme).
   */
  readonly pattern: RegExp;
}

/** Secret shapes recognised by default. Order matters: more specific shapes first. */
export const DEFAULT_SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    name: "private-key",
    pattern:
      /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|$)/g,
  },
  {
    // A key's last lines read without its BEGIN line (`tail key.pem`, a later page of
    // read_file): the base64 lines just above its END line, and that line.
    name: "private-key",
    pattern: /(^|\n)(?:[A-Za-z0-9+/=]{1,80}\r?\n){1,128}-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----/g,
  },
  {
    // A page from a key's middle, with neither its BEGIN nor its END line: two or more
    // lines of base64 at PEM's width (64 characters; OpenSSH's 70), then a shorter last
    // one. A certificate or public key read from its BEGIN line stays (see `replacement`).
    name: "private-key",
    pattern:
      /(^|\n)(?:(?:[A-Za-z0-9+/]{64}|[A-Za-z0-9+/]{70})(?:\r?\n|$)){2,}(?:[A-Za-z0-9+/]{1,69}={0,2}(?=\r?\n|$))?/g,
  },
  { name: "anthropic-key", pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
  { name: "openai-key", pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  {
    name: "github-token",
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g,
  },
  {
    // The 40-character secret written right after its access key id (CSV, a line, JSON).
    name: "aws-secret-key",
    pattern:
      /(\b(?:AKIA|ASIA)[0-9A-Z]{16}["']?[ \t]*[,:;=| \t][ \t]*["']?)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g,
  },
  { name: "aws-access-key", pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { name: "google-api-key", pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { name: "slack-token", pattern: /\bxox[abposre]-[A-Za-z0-9-]{10,}/g },
  {
    name: "slack-webhook",
    pattern: /\bhttps:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]{8,}/g,
  },
  { name: "stripe-key", pattern: /\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}/g },
  { name: "jwt", pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  {
    // scheme://user:password@host: the password goes, the user and host stay readable.
    name: "url-credentials",
    pattern:
      /(\b[A-Za-z][A-Za-z0-9+.-]{1,20}:\/\/[^\s:/@"'<>\\]{1,256}:)[^\s/@"'<>\\]{1,256}(?=@)/g,
  },
  {
    // The whole credential of an Authorization header, whatever its scheme.
    name: "authorization",
    pattern:
      /(\b(?:Proxy-)?Authorization["']?[ \t]*[:=][ \t]*["'`]?(?:(?:Bearer|Basic|Token|Digest|Negotiate|Bot)[ \t]+)?)[^\s"'`\\]{4,}/gi,
  },
  { name: "bearer-token", pattern: /(\b(?:Bearer|Basic)[ \t]+)[A-Za-z0-9._~+/=-]{8,}/gi },
  {
    name: "secret-field",
    // "password": "…" in JSON, or API_TOKEN=… / client_secret: … in text. The name must
    // end with the secret word, so `inputTokens` or `tokenizer` are left alone. The
    // name is at most 64 characters, so a long run of word characters stays linear.
    // Never across a line: no newline around the `:` / `=` or inside the value, and an
    // unquoted value stops at a backslash (an escaped `\n` of JSON text is a line break).
    // Code that names a secret instead of holding one is left as written (`isCodeReference`).
    pattern:
      /(["']?\b[A-Za-z0-9_-]{0,64}?(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)["']?[ \t]*[:=][ \t]*)("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s"',;}&\\]{4,})/gi,
  },
];
