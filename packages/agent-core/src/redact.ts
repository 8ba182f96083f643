/**
 * Redaction of secrets in text, applied before anything reaches the model, the
 * result or a trace. Patterns cover the key and token shapes of common providers
 * (OpenAI, Anthropic, GitHub, AWS, Google, Slack, Stripe), JWTs, private key
 * blocks, credentials inside URLs, `Authorization` headers, bearer tokens,
 * secret-looking fields and assignments, and the values of environment variables
 * whose names look secret. Just as deliberately, they leave alone what only looks
 * random: git SHAs, UUIDs, ordinary hex and short base64.
 */

import { DEFAULT_SECRET_PATTERNS, type SecretPattern } from "./secret-patterns.ts";
import {
  isCodeReference,
  isSecretLiteral,
  literalSource,
  MIN_ENV_SECRET_LENGTH,
  NOT_SECRET_VALUES,
} from "./secret-values.ts";

export { DEFAULT_SECRET_PATTERNS, type SecretPattern } from "./secret-patterns.ts";

/** Names of environment variables whose values are treated as secrets. */
export const SECRET_ENV_NAME =
  /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE|AUTH|COOKIE|SESSION)/i;

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
  // An empty, short or stand-in value would mask ordinary words: never a secret.
  const literals = new Set<string>((options.secrets ?? []).filter(isSecretLiteral));
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && isSecretLiteral(value) && SECRET_ENV_NAME.test(name)) {
      literals.add(value);
    }
  }
  const literalPattern =
    literals.size === 0
      ? undefined
      : new RegExp(
          [...literals]
            .sort((a, b) => b.length - a.length)
            .map(literalSource)
            .join("|"),
          "g",
        );
  const patterns = options.patterns ?? DEFAULT_SECRET_PATTERNS;
  const anySecret = prefilter(literalPattern, patterns);

  return (text) => {
    if (anySecret !== undefined && !anySecret.test(text)) return text;
    let out = literalPattern === undefined ? text : text.replace(literalPattern, "[REDACTED:env]");
    for (const { name, pattern } of patterns) {
      out = out.replace(pattern, (match: string, ...groups: unknown[]) =>
        replacement(name, match, groups),
      );
    }
    return out;
  };
}

/**
 * One case-insensitive scan over every shape: most texts hold no secret, and one
 * failed test is much cheaper than a dozen replace passes. It only filters (it may
 * let through a text no pattern masks, never the reverse); the precise patterns do
 * the masking. A custom pattern with other flags (`m`, `s`, `y`…) would not mean the
 * same inside it, so then there is no prefilter.
 */
function prefilter(
  literals: RegExp | undefined,
  patterns: readonly SecretPattern[],
): RegExp | undefined {
  if (patterns.some(({ pattern }) => /[^gi]/.test(pattern.flags))) return undefined;
  const sources = patterns.map(({ pattern }) => pattern.source);
  if (literals !== undefined) sources.unshift(literals.source);
  return sources.length === 0 ? NEVER : new RegExp(sources.join("|"), "i");
}

/** Matches nothing: the prefilter when there is nothing to mask. */
const NEVER = /(?!)/;

/**
 * The environment as the last call read it: every name in order, each secret-looking
 * name with its value (a short or unset one too: it may be given a longer value), and
 * the redactor compiled from the values long enough to mask.
 */
interface EnvironmentSnapshot {
  readonly names: readonly string[];
  readonly secretNames: readonly string[];
  readonly secretValues: readonly (string | undefined)[];
  /** `name\0value\0` of each masked value: the redactor is recompiled only when it changes. */
  readonly key: string;
  readonly redactor: Redactor;
}

let lastEnvironment: EnvironmentSnapshot | undefined;

/**
 * The default redactor as the environment is now: default patterns plus the values
 * of secret-looking variables. Call it once per run, so a key set or rotated after
 * an earlier run is still masked.
 *
 * Listing the names is the one cost no run can skip (a new variable may have any name,
 * and Node offers no cheaper sign that the environment changed). Around it the check is
 * as small as it can be: when the names are those of the last call, in the same order,
 * and every secret-looking one has the same value, the last redactor is returned without
 * testing a name or building anything. `getOwnPropertyNames`, not `Object.keys`: for
 * `process.env` both list the same names (every variable is enumerable), and it skips
 * the enumerability query Node answers per name, about a third of the cost. For another
 * object it also lists non-enumerable names: more masked, never less.
 */
export function redactorForEnvironment(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Redactor {
  const names = Object.getOwnPropertyNames(env);
  const last = lastEnvironment;
  if (last !== undefined && isUnchanged(last, env, names)) return last.redactor;
  const snapshot = snapshotEnvironment(env, names, last);
  lastEnvironment = snapshot;
  return snapshot.redactor;
}

function isUnchanged(
  last: EnvironmentSnapshot,
  env: Readonly<Record<string, string | undefined>>,
  names: readonly string[],
): boolean {
  const known = last.names;
  if (names.length !== known.length) return false;
  for (let index = 0; index < names.length; index += 1) {
    if (names[index] !== known[index]) return false;
  }
  const { secretNames, secretValues } = last;
  for (let index = 0; index < secretNames.length; index += 1) {
    if (env[secretNames[index] as string] !== secretValues[index]) return false;
  }
  return true;
}

function snapshotEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  names: readonly string[],
  last: EnvironmentSnapshot | undefined,
): EnvironmentSnapshot {
  const secretNames: string[] = [];
  const secretValues: (string | undefined)[] = [];
  const secrets: Record<string, string> = {};
  let key = "";
  for (const name of names) {
    if (!SECRET_ENV_NAME.test(name)) continue;
    const value = env[name];
    secretNames.push(name);
    secretValues.push(value);
    if (value === undefined || value.length < MIN_ENV_SECRET_LENGTH) continue;
    secrets[name] = value;
    key += `${name}\u0000${value}\u0000`;
  }
  const redactor =
    last !== undefined && last.key === key ? last.redactor : createRedactor({ env: secrets });
  return { names, secretNames, secretValues, key, redactor };
}

function replacement(name: string, match: string, groups: readonly unknown[]): string {
  const prefix = typeof groups[0] === "string" ? groups[0] : "";
  const value = match.slice(prefix.length);
  // A value that is already a marker stays as it is (redacting twice changes nothing).
  if (ALREADY_MASKED.test(value)) return match;
  if (name === "private-key" && !value.includes("-----")) {
    return isKeyBody(value, groups)
      ? `${prefix}[REDACTED:${name}]${value.endsWith("\n") ? "\n" : ""}`
      : match;
  }
  // A header built from a variable (`Bearer $TOKEN`, `` `Bearer ${token}` ``) holds no secret.
  if (name === "authorization" && isCodeReference(value, true)) return match;
  if (name !== "secret-field") return `${prefix}[REDACTED:${name}]`;
  // A field's value keeps its own quoting, so JSON stays JSON and a line stays the line
  // it was, but for the secret itself.
  const quote = value.startsWith('"') || value.startsWith("'") ? value.charAt(0) : "";
  const inner = quote === "" ? value : value.slice(1, -1);
  if (isCodeReference(inner, quote !== "") || NOT_SECRET_VALUES.has(inner.toLowerCase()))
    return match;
  return `${prefix}${quote}[REDACTED:${name}]${quote}`;
}

const ALREADY_MASKED = /^["']?\[REDACTED:[a-z-]+\]["']?$/;

/**
 * Whether PEM-width base64 lines with no BEGIN line in sight are (part of) a private key
 * body: random base64 mixes upper and lower case (a column of hashes does not), and the
 * line just above is no BEGIN line (a private key's would have been masked with its block,
 * so one there starts a certificate or a public key). A page from the middle of a
 * certificate cannot be told from a key's, and is masked.
 */
function isKeyBody(value: string, groups: readonly unknown[]): boolean {
  if (!/[A-Z]/.test(value) || !/[a-z]/.test(value)) return false;
  const offset = groups.at(-2);
  const text = groups.at(-1);
  if (typeof offset !== "number" || typeof text !== "string" || offset === 0) return true;
  const previous = text.slice(text.lastIndexOf("\n", offset - 1) + 1, offset).trim();
  return !/^-----BEGIN [A-Z0-9 ]+-----$/.test(previous);
}

/**
 * JSON data with every string and key redacted. A part in which nothing is masked (almost
 * every part) is returned as it is, not copied; a part with a secret is copied, so the
 * input is never changed. Each string is redacted on its own, never the serialized text,
 * and a string under a secret-looking key (`password`, `apiKey`) is redacted with its key
 * as context: `{ "password": "hunter2" }` holds a secret where `hunter2` alone does not.
 */
export function redactJson(redact: Redactor, value: unknown): unknown {
  if (typeof value === "string") return redact(value);
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let index = 0; index < value.length; index += 1) {
      const item: unknown = value[index];
      const redacted = redactJson(redact, item);
      if (redacted === item) continue;
      out ??= value.slice();
      out[index] = redacted;
    }
    return out ?? value;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (redact(key) !== key || redactEntry(redact, key, item) !== item) {
      return redactRecord(redact, record);
    }
  }
  return record;
}

/** The end of a key that names a secret (as the `secret-field` pattern reads it). */
const SECRET_KEY =
  /(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)$/i;

/** One value of a record, redacted; a string under a secret-looking key with the key as context. */
function redactEntry(redact: Redactor, key: string, item: unknown): unknown {
  if (typeof item !== "string" || !SECRET_KEY.test(key)) return redactJson(redact, item);
  const alone = redact(item);
  const pair = `${JSON.stringify(key)}: ${JSON.stringify(alone)}`;
  const masked = redact(pair);
  if (masked === pair) return alone;
  try {
    const [field] = Object.values(JSON.parse(`{${masked}}`) as Record<string, unknown>);
    if (typeof field === "string") return field;
  } catch {
    // A redactor that broke the pair's JSON: the value goes whole.
  }
  return "[REDACTED:secret-field]";
}

/** A copy of a record with every key and value redacted; `__proto__` stays a data key. */
function redactRecord(redact: Redactor, record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    const item = redactEntry(redact, key, record[key]);
    // Assigning "__proto__" would set the prototype instead of copying the data.
    if (key === "__proto__") {
      // Read-only from the start: the loop deep-freezes what it records.
      Object.defineProperty(out, key, { value: item, enumerable: true });
    } else {
      out[redact(key)] = item;
    }
  }
  return out;
}
