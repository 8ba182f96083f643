import { stableStringify } from "./serialize.ts";

/**
 * Where whole tool outputs go when the model sees less of them (a large output, a
 * compacted result). Types only: agent-core does no I/O, a store writes files
 * (`@coding-agent/tools`' `createFileArtifactStore`). The text given is already redacted.
 */
export interface ArtifactStore {
  /** Stores `text`; resolves to the id `read` and the `read_artifact` tool take. */
  put(text: string, meta: { readonly callId: string; readonly tool: string }): Promise<string>;
  /** The stored text, or undefined for an id it does not hold. */
  read(id: string): Promise<string | undefined>;
}

/** Fields whose text is the output itself, in the order an artifact shows them. */
const TEXT_FIELDS = ["content", "stdout", "stderr", "text", "output"] as const;

/**
 * A tool value as an artifact keeps it: its text with its line breaks, not one line of
 * JSON. A string is itself; an object's text fields (`content` of `read_file`, `stdout`
 * and `stderr` of `run_command`, …) come first, the first one unlabelled so that its line
 * numbers are the file's, the others under a `--- <field> ---` line; the other fields
 * follow as indented JSON under `--- fields ---`. Anything else is indented JSON.
 */
export function artifactText(value: unknown): string {
  if (typeof value === "string") return value;
  const json = JSON.parse(stableStringify(value)) as unknown;
  const texts: readonly string[] = textFields(json);
  if (texts.length === 0) return JSON.stringify(json, null, 2);
  const record = json as Record<string, unknown>;
  const parts = texts.map((field, index) => {
    const text = record[field] as string;
    return index === 0 ? text : `\n--- ${field} ---\n${text}`;
  });
  const rest = Object.entries(record).filter(([key]) => !texts.includes(key));
  if (rest.length > 0) {
    parts.push(`\n--- fields ---\n${JSON.stringify(Object.fromEntries(rest), null, 2)}`);
  }
  return parts.join("");
}

/** The field whose text an artifact starts with, if the value has one (see `artifactText`). */
export function artifactMainField(value: unknown): string | undefined {
  return textFields(value)[0];
}

/** The text fields `value` has, in `TEXT_FIELDS` order; a primitive and null have none. */
function textFields(value: unknown): string[] {
  const record = value as Readonly<Record<string, unknown>> | null | undefined;
  return TEXT_FIELDS.filter((field) => typeof record?.[field] === "string");
}
