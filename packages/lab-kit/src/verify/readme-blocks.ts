/**
 * The fenced blocks of a lesson README with the output mark before each: read both by the
 * check of output blocks (`readme-outputs.ts`) and by the runner of their commands
 * (`readme-commands.ts`).
 */

/** `<!-- output: verify -->` before a block (kinds: docs/architecture.md, "README output blocks"). */
const OUTPUT_MARK = /^<!--\s*output:\s*([a-z-]+)\s*-->$/;

/** A fenced block of a README with the mark before it, if any. */
export interface ReadmeBlock {
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The fence's info string (`bash`, `text`, …), or "". */
  readonly info: string;
  readonly mark: string | undefined;
  readonly lines: readonly string[];
  /** The prose line that leads into the block (above its mark), if the block follows prose. */
  readonly lead: string | undefined;
}

/** Every fenced block of a Markdown text, with the output mark on the line before it. */
export function readmeBlocks(readme: string): ReadmeBlock[] {
  const lines = readme.split("\n");
  const blocks: ReadmeBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const fence = /^(`{3,})\s*(\S*)/.exec(lines[index] ?? "");
    if (fence === null) continue;
    const mark = OUTPUT_MARK.exec((lines[index - 1] ?? "").trim())?.[1];
    const close = lines.findIndex((line, at) => at > index && line.startsWith(fence[1] ?? "```"));
    const end = close === -1 ? lines.length : close;
    const body = lines.slice(index + 1, end);
    let above = index - (mark === undefined ? 1 : 2);
    while (above >= 0 && (lines[above] ?? "").trim() === "") above -= 1;
    const leadLine = lines[above];
    // A cli block follows the bash block it shows the output of: their lead is the prose above both.
    const lead = leadLine?.startsWith("```") === true ? blocks.at(-1)?.lead : leadLine;
    blocks.push({ line: index + 1, info: fence[2] ?? "", mark, lines: body, lead });
    index = end;
  }
  return blocks;
}
