/**
 * Which values are secrets, for `redact.ts`: a literal (an environment value, a key) worth
 * masking, and the code or stand-in a secret-looking field may hold instead of a secret.
 */

/** Shortest environment value worth redacting (shorter ones would mask ordinary words). */
export const MIN_ENV_SECRET_LENGTH = 6;

/**
 * A literal shorter than this is masked only as a whole word (not inside a longer run of
 * letters and digits): a value of 6 to 15 characters can be part of an ordinary word. A
 * longer one is masked wherever it appears, so a key cannot leak glued to other text.
 */
const WHOLE_WORD_BELOW = 16;

/**
 * Values people give a key variable when there is no real key (a local server, a demo,
 * lesson 38's "any value"): never secrets, so never masked. Without this, `ollama` as
 * `OPENAI_API_KEY` masks the word wherever a goal or a file names the tool.
 */
export const NOT_SECRET_VALUES = new Set([
  "ollama",
  "lm-studio",
  "lmstudio",
  "llama.cpp",
  "vllm",
  "test",
  "testing",
  "dummy",
  "empty",
  "none",
  "null",
  "placeholder",
  "changeme",
  "not-needed",
  "no-key",
  "sk-no-key-required",
  "anything",
  "any-value",
  "local",
  "localhost",
  "secret",
  "password",
  "token",
  "api-key",
  "apikey",
]);

/** True for a literal value worth masking: long enough, and not a stand-in for a key. */
export function isSecretLiteral(value: string): boolean {
  return value.length >= MIN_ENV_SECRET_LENGTH && !NOT_SECRET_VALUES.has(value.toLowerCase());
}

/** A literal's pattern: a short one only where it is a whole word (see `WHOLE_WORD_BELOW`). */
export function literalSource(value: string): string {
  const escaped = escapeRegExp(value);
  return value.length < WHOLE_WORD_BELOW ? `(?<![A-Za-z0-9])${escaped}(?![A-Za-z0-9])` : escaped;
}

/**
 * Source code that names a secret rather than holding one: `process.env.API_KEY`,
 * `config.apiKey`, `getToken()`, `env["TOKEN"]`, `$API_KEY`, `${{ secrets.TOKEN }}`,
 * `apiKey` / `api_key` (a variable of that name), `string` (a type), `<your-key>` (a
 * placeholder). Masking these would change what the model sees of a source file, so an
 * edit written from it could not apply. A quoted value is data unless it is empty, a
 * `$` reference or a placeholder.
 */
export function isCodeReference(value: string, quoted: boolean): boolean {
  if (value === "" || value.startsWith("$") || /^<[^<>]*>$/.test(value)) return true;
  if (quoted) return false;
  // The end of a call it is an argument of: `Client(api_key=api_key)`.
  const bare = value.replace(/[)\]]+$/, "");
  return CODE_REFERENCES.some((pattern) => pattern.test(bare));
}

const CODE_REFERENCES: readonly RegExp[] = [
  // A member path: process.env.API_KEY, config.apiKey, os.environ[, std::env::var(.
  // Names are short: a long random part after a dot (`ya29.<token>`) is a token, not code.
  /^[A-Za-z_$@][\w$]{0,40}(?:(?:\??\.|::)[A-Za-z_$][\w$]{0,40})+(?:$|[([?!)])/,
  // A call or an index: getToken(, os.getenv(, ENV[, config[:api_key].
  /^[A-Za-z_$@][\w$]{0,40}[([]/,
  // A variable named for the secret: apiKey, api_key, API_KEY, accessToken, token, @secret.
  /^@?(?:[a-z][A-Za-z0-9]*)?(?:Password|Passwd|Secret|Token|Key|Credentials?)$/,
  /^@?(?:[a-z0-9]+_)*(?:password|passwd|secret|token|key|credentials?)$/,
  /^(?:[A-Z0-9]+_)*(?:PASSWORD|PASSWD|SECRET|TOKEN|KEY|CREDENTIALS?)$/,
  // A type or a keyword: `apiKey: string;`, `token: Optional[str]`, `secret: await …`.
  /^(?:string|number|boolean|bool|str|int|bytes|any|unknown|object|undefined|null|None|nil|true|false|True|False|Optional|String|SecretStr|await|async|new|this|self|require|import|function|lambda|if|else|return)(?:$|[|?)[\]<>])/,
];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
