/**
 * A trace text made safe to show: control characters (ESC and the rest of C0 and C1, DEL;
 * tab and line feed stay) and the bidirectional overrides that can reorder what a reader
 * sees become visible `\u{…}` notation. In a terminal this keeps a tool output from moving
 * the cursor or clearing the screen; on the page it shows what was there instead of a box.
 */
export function printable(text: string): string {
  return text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point.
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u{${(char.codePointAt(0) ?? 0).toString(16)}}`,
  );
}
