/**
 * Reads what pytest prints with `-rA`: the closing line's counts (`3 failed, 2 passed,
 * 1 skipped in 0.12s`) and the short test summary's `FAILED` / `ERROR` lines for names,
 * each message taken from its block in the FAILURES / ERRORS sections. Pure: text in,
 * report out.
 *
 * Why the terminal summary rather than `--junitxml`: the XML is a file, and a file in the
 * workspace changes its version (and inside bubblewrap `/tmp` is private, so a file there
 * is gone before it can be read); the summary is on stdout, in every pytest since 2.x.
 */

import { clipMessage } from "./test-name.ts";
import type { TestCounts, TestFailure } from "./test-report.ts";

/** `=== 3 failed, 2 passed in 0.12s ===`, or with `-q` the same without the rules. */
const CLOSING_LINE =
  /^=*\s*((?:\d+ [a-z]+)(?:, \d+ [a-z]+)*|no tests ran) in [\d.]+s(?: \([\d:.]+\))?\s*=*$/;
const SUMMARY_HEADER = /^=+ short test summary info =+$/;
const SUMMARY_ENTRY = /^(FAILED|ERROR) (.+?)(?: - (.*))?$/;
const SECTION = /^=+ (.*?) =+$/;
const BLOCK_HEADER = /^_{3,} (.+?) _{3,}$/;

/**
 * Counts from pytest's closing line (errors count as failures, xpassed as passed, xfailed
 * as skipped), failures from the `-rA` short summary, named by their node id (what
 * `pytest <id>` runs again). Undefined without a closing line: pytest did not finish.
 */
export function parsePytestSummary(output: string): TestCounts | undefined {
  const lines = output.split(/\r?\n/);
  let closing: string | undefined;
  for (const line of lines) {
    const match = CLOSING_LINE.exec(line.trim());
    // The last one wins: a plugin or a nested run may have printed one before.
    if (match?.[1] !== undefined) closing = match[1];
  }
  if (closing === undefined) return undefined;
  const counts = new Map<string, number>();
  for (const part of closing === "no tests ran" ? [] : closing.split(", ")) {
    const [count, word] = part.split(" ");
    // `error` and `errors`, `warning` and `warnings` are one kind each.
    const kind = (word ?? "").replace(/s$/, "");
    counts.set(kind, (counts.get(kind) ?? 0) + Number(count));
  }
  const count = (kind: string) => counts.get(kind) ?? 0;
  return {
    passed: count("passed") + count("xpassed"),
    failed: count("failed") + count("error"),
    skipped: count("skipped") + count("xfailed"),
    failures: readFailures(lines),
  };
}

/** The short summary's `FAILED` / `ERROR` entries, each with its block's message. */
function readFailures(lines: readonly string[]): TestFailure[] {
  const blocks = readBlocks(lines);
  const start = lines.findIndex((line) => SUMMARY_HEADER.test(line));
  if (start < 0) return [];
  const failures: TestFailure[] = [];
  for (const line of lines.slice(start + 1)) {
    if (SECTION.test(line) || CLOSING_LINE.test(line.trim())) break;
    const entry = SUMMARY_ENTRY.exec(line);
    if (entry?.[2] === undefined) continue;
    const id = entry[2];
    const block = blocks.get(blockKey(id))?.shift();
    failures.push({ name: id, message: clipMessage(block ?? entry[3] ?? "") });
  }
  return failures;
}

/**
 * The blocks of the FAILURES and ERRORS sections by their header, which names a test as
 * `Class.test` (its node id without the file), a setup error as `ERROR at setup of test`,
 * a collection error as `ERROR collecting file`. A header may repeat (the same test name
 * in two files): its blocks queue in order.
 */
function readBlocks(lines: readonly string[]): Map<string, string[]> {
  const blocks = new Map<string, string[]>();
  let inSection = false;
  let header: string | undefined;
  let body: string[] = [];
  const close = () => {
    if (header === undefined) return;
    const key = header
      .replace(/^ERROR at (?:setup|teardown|call) of /, "")
      .replace(/^ERROR collecting /, "");
    blocks.set(key, [...(blocks.get(key) ?? []), blockMessage(body)]);
    header = undefined;
  };
  for (const line of lines) {
    const section = SECTION.exec(line);
    if (section) {
      close();
      inSection = section[1] === "FAILURES" || section[1] === "ERRORS";
      continue;
    }
    if (!inSection) continue;
    const opened = BLOCK_HEADER.exec(line);
    if (opened?.[1] !== undefined) {
      close();
      header = opened[1];
      body = [];
      continue;
    }
    body.push(line);
  }
  close();
  return blocks;
}

/** A block's `E` lines (the assertion and its explanation) and the `file:line: Error` it ends with. */
function blockMessage(body: readonly string[]): string {
  const explained = body
    .filter((line) => /^E(?: |$)/.test(line))
    .map((line) => line.slice(2).trimEnd());
  const where = [...body].reverse().find((line) => /^\S+:\d+: \S/.test(line));
  const parts = explained.length > 0 ? explained : body.map((line) => line.trimEnd());
  return [...parts, ...(where === undefined ? [] : [where])].join("\n").trim();
}

/** The header of a node id's block: the id without its file, `::` read as `.`. */
function blockKey(id: string): string {
  const parts = id.split("::");
  return parts.length > 1 ? parts.slice(1).join(".") : id;
}
