import pc from "picocolors";

/** Where a command writes: a stream with `write`, and whether it is a terminal. */
export interface OutputStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

/** The colour functions the learner tools use; identity functions when colour is off. */
export type Colors = ReturnType<typeof pc.createColors>;

/**
 * Colours only for a terminal, and never when `NO_COLOR` is set (https://no-color.org);
 * `FORCE_COLOR` turns them on for a pipe.
 */
export function colorsFor(stream: { readonly isTTY?: boolean }, env: NodeJS.ProcessEnv): Colors {
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== "";
  const force = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0";
  const enabled = !noColor && (force || (stream.isTTY === true && env.TERM !== "dumb"));
  return pc.createColors(enabled);
}

// East Asian wide and fullwidth ranges: a terminal draws these two columns wide.
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escapes is the point
const ANSI = /\u001b\[[0-9;]*m/g;

/** How many terminal columns `text` takes (CJK two each; colour escapes none). */
export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text.replace(ANSI, "")) width += WIDE.test(char) ? 2 : 1;
  return width;
}

/** Pads `text` with spaces to `width` terminal columns. */
export function padToWidth(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - displayWidth(text)));
}

/** The first line of `text` that is not blank, trimmed: what a one-line report shows. */
export function firstLine(text: string): string {
  return (text.split("\n").find((line) => line.trim() !== "") ?? "").trim();
}
