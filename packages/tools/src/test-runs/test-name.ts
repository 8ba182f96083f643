/**
 * The one shape of a failure's name and message across every runner `run_tests` reads.
 */

/** Characters kept of one failure's message. */
export const MAX_MESSAGE_CHARS = 2_000;

/**
 * A test's full name: its ancestors (suites, files, groups) then itself, each trimmed,
 * empty parts left out, joined by " > ". A " > " inside a name stays as it is: the
 * name is for reading, and the message and the runner's own output locate the test.
 */
export function joinTestName(parts: readonly string[]): string {
  return parts
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .join(" > ");
}

/** A failure's message, cut to `max` characters with a marker saying so. */
export function clipMessage(message: string, max = MAX_MESSAGE_CHARS): string {
  return message.length <= max ? message : `${message.slice(0, max)}…（已截断）`;
}

/** A TAP description with the producer's escapes undone (`\#` → `#`, `\\` → `\`). */
export function unescapeTapName(raw: string): string {
  return raw.replace(/\\([#\\])/g, "$1");
}
