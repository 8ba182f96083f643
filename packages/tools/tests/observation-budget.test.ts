import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createRedactor,
  DEFAULT_MAX_OBSERVATION_CHARS,
  runAgent,
  serializeObservation,
  TRUNCATION_MARKER,
} from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  DEFAULT_READ_LIMITS,
  listWorkspaceFiles,
  type ReadFileInput,
  type ReadFileResult,
  type ReadLimits,
  readWorkspaceFile,
} from "../src/fs-read.ts";
import {
  type ObservationBudget,
  observationBudget,
  observedLength,
} from "../src/observation-budget.ts";
import { createRunCommand } from "../src/run-command.ts";
import { createSandboxPolicy } from "../src/sandbox/policy.ts";
import { searchWorkspace } from "../src/search.ts";
import { createWorkspace, type Workspace } from "../src/workspace.ts";
import { createReadTools } from "../src/workspace-tools.ts";

let dir: string;
let workspace: Workspace;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "coding-agent-budget-")));
  workspace = createWorkspace(dir);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/**
 * A real-looking 764-line TypeScript module of about 18 KB: comments, strings with
 * quotes, backslashes and tabs (escaped in JSON), Chinese text and an emoji.
 */
function sourceFile(): string {
  const lines: string[] = ['import { readFile } from "node:fs/promises";', ""];
  for (let n = 0; lines.length < 764; n++) {
    lines.push(
      `/** Parses the ${n}th section: "quoted", a \\ backslash and 中文说明 🙂. */`,
      `export function parseSection${n}(text: string): string[] {`,
      `\tconst parts = text.split("\\t").map((part) => part.trim());`,
      `\treturn parts.filter((part) => part !== "" && part.length < ${n + 10});`,
      "}",
      "",
    );
  }
  return `${lines.slice(0, 764).join("\n")}\n`;
}

/** Follows a read's paging fields from line 1 to the end; every result is checked against the budget. */
async function readToEnd(
  file: string,
  budget: ObservationBudget,
  limits: ReadLimits = DEFAULT_READ_LIMITS,
): Promise<{ text: string; pages: ReadFileResult[] }> {
  const pages: ReadFileResult[] = [];
  let input: ReadFileInput = { path: file };
  let text = "";
  for (let call = 0; call < 10_000; call++) {
    const result = await readWorkspaceFile(workspace, input, limits, budget);
    if ("ok" in result) throw new Error(result.error.message);
    expect(observedLength(result)).toBeLessThanOrEqual(budget.maxChars);
    expect(result.content).not.toMatch(LONE_SURROGATE);
    const continuesLine = pages.at(-1)?.nextStartColumn !== undefined;
    text += pages.length === 0 || continuesLine ? result.content : `\n${result.content}`;
    pages.push(result);
    if (!result.truncated) return { text, pages };
    expect(result.nextStartLine).toBeDefined();
    input = {
      path: file,
      startLine: result.nextStartLine ?? 1,
      ...(result.nextStartColumn === undefined ? {} : { startColumn: result.nextStartColumn }),
    };
  }
  throw new Error("paging never ended");
}

/** Half of a UTF-16 surrogate pair without its other half: a character split in two. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The lines of a file as read_file joins them: without the final newline. */
function asLines(text: string): string {
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

describe("read_file within the observation budget", () => {
  it("reads a 764-line source file to its end through runAgent, every page reaching the model whole", async () => {
    const source = sourceFile();
    expect(source.split("\n")).toHaveLength(765);
    expect(source.length).toBeGreaterThan(17_000);
    await writeFile(join(dir, "parser.ts"), source);
    // The script follows the paging fields as the tool gives them…
    const budget = observationBudget();
    const { pages } = await readToEnd("parser.ts", budget);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    const inputs = pages.map((_, index) => ({
      path: "parser.ts",
      ...(index === 0 ? {} : { startLine: pages[index - 1]?.nextStartLine }),
    }));
    const provider = createScriptedProvider([
      ...inputs.map((input) => ({ action: { type: "tool_call", tool: "read_file", input } })),
      { action: { type: "finish", summary: "读完了" } },
    ]);
    const result = await runAgent(
      "读完 parser.ts",
      provider,
      createReadTools(workspace, DEFAULT_READ_LIMITS, budget),
      { maxSteps: pages.length + 1 },
    );
    expect(result.status).toBe("completed");
    // …and the model is shown exactly those fields, never the loop's cut.
    const shown = result.messages
      .filter((message) => message.role === "tool")
      .map((message) => ("content" in message ? String(message.content) : ""));
    expect(shown).toHaveLength(pages.length);
    for (const text of shown) expect(text).not.toMatch(TRUNCATION_MARKER);
    const read = shown.map((text) => JSON.parse(text) as ReadFileResult);
    read.forEach((page, index) => {
      const next = inputs[index + 1];
      if (next === undefined) expect(page.truncated).toBe(false);
      else expect(page).toMatchObject({ truncated: true, nextStartLine: next.startLine });
      expect(page.totalLines).toBe(764);
    });
    expect(read.map((page) => page.content).join("\n")).toBe(asLines(source));
  });

  it("measures a page after the run's redaction: secrets whose marker is longer never push it over the cap", async () => {
    const redact = createRedactor({ env: { SERVICE_TOKEN: "tok123" } });
    await writeFile(join(dir, ".env.log"), "token=tok123 tok123 tok123\n".repeat(400));
    const budget = observationBudget(2_000, redact);
    const result = await runAgent(
      "看看日志",
      createScriptedProvider([
        { action: { type: "tool_call", tool: "read_file", input: { path: ".env.log" } } },
        { action: { type: "finish", summary: "看完了" } },
      ]),
      createReadTools(workspace, DEFAULT_READ_LIMITS, budget),
      { maxSteps: 2 },
      undefined,
      { redact, maxObservationChars: 2_000 },
    );
    const shown = result.messages.find((message) => message.role === "tool");
    expect(shown).toMatchObject({ truncated: false });
    const page = JSON.parse(
      String(shown && "content" in shown ? shown.content : ""),
    ) as ReadFileResult;
    expect(page).toMatchObject({ truncated: true, nextStartLine: expect.any(Number) });
    expect(page.content).toContain("[REDACTED:env]");
    expect(page.content).not.toContain("tok123");
  });

  it("fits the serialized result, escapes included, not just the content's length", async () => {
    // Every character of a line of quotes and tabs takes two in JSON.
    const line = '"\t'.repeat(100);
    await writeFile(join(dir, "escaped.txt"), `${`${line}\n`.repeat(200)}`);
    const budget = observationBudget(2_000);
    const first = await readWorkspaceFile(workspace, { path: "escaped.txt" }, undefined, budget);
    expect(first).toMatchObject({ truncated: true, nextStartLine: expect.any(Number) });
    const length = serializeObservation(first).text.length;
    expect(length).toBeLessThanOrEqual(2_000);
    // Whole lines, as many as fit: one more would not.
    expect(length + (line.length * 2 + 2)).toBeGreaterThan(2_000);
  });

  it("reads a line longer than the budget in pieces continued with nextStartColumn", async () => {
    const long = "x".repeat(5_000);
    const file = `short\n${long}\nafter\n`;
    await writeFile(join(dir, "minified.js"), file);
    const { text, pages } = await readToEnd("minified.js", observationBudget(1_000));
    expect(text).toBe(asLines(file));
    expect(pages[0]).toMatchObject({ content: "short", nextStartLine: 2 });
    expect(pages[1]).toMatchObject({ nextStartLine: 2, nextStartColumn: expect.any(Number) });
  });

  it("keeps CRLF line endings byte for byte across pages", async () => {
    const file = Array.from({ length: 400 }, (_, i) => `line ${i} of a windows file`).join("\r\n");
    await writeFile(join(dir, "crlf.txt"), `${file}\r\n`);
    const { text, pages } = await readToEnd("crlf.txt", observationBudget(1_500));
    expect(pages.length).toBeGreaterThan(1);
    expect(text).toBe(`${file}\r`);
  });

  it("never splits an emoji or a multi-byte character, within a line or at a scan window's edge", async () => {
    const file = `${"🙂中文é".repeat(2_000)}\n${"第二行🙂\n".repeat(300)}`;
    await writeFile(join(dir, "emoji.txt"), file);
    // Budgets one apart put the cut at every position of a 5-unit group once.
    for (const chars of [1_000, 1_001, 1_002, 1_003, 1_004]) {
      const small: ReadLimits = { ...DEFAULT_READ_LIMITS, maxScanBytes: chars + 1 };
      const { text } = await readToEnd("emoji.txt", observationBudget(chars), small);
      expect(text).toBe(asLines(file));
    }
  });

  it("reads past the scanned window: a file larger than maxScanBytes is read to its end", async () => {
    const file = Array.from({ length: 3_000 }, (_, i) => `row ${i}`).join("\n");
    await writeFile(join(dir, "big.txt"), file);
    const small: ReadLimits = { ...DEFAULT_READ_LIMITS, maxScanBytes: 2_000 };
    const { text, pages } = await readToEnd("big.txt", observationBudget(), small);
    expect(text).toBe(file);
    expect(pages.every((page) => page.totalLines === 3_000)).toBe(true);
  });

  it("answers an empty file, and a start past the end, with no content and nothing left out", async () => {
    await writeFile(join(dir, "empty.txt"), "");
    await writeFile(join(dir, "two.txt"), "a\nb\n");
    expect(await readWorkspaceFile(workspace, { path: "empty.txt" })).toMatchObject({
      content: "",
      totalLines: 0,
      truncated: false,
    });
    const past = await readWorkspaceFile(workspace, { path: "two.txt", startLine: 9 });
    expect(past).toMatchObject({ content: "", totalLines: 2, truncated: false });
    expect(past).not.toHaveProperty("nextStartLine");
  });

  it("stops a range at endLine and says nothing is missing from it", async () => {
    await writeFile(join(dir, "ten.txt"), "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n");
    expect(
      await readWorkspaceFile(workspace, { path: "ten.txt", startLine: 3, endLine: 5 }),
    ).toEqual({ content: "3\n4\n5", hash: expect.any(String), totalLines: 10, truncated: false });
  });
});

describe("list_files and search within the observation budget", () => {
  it("lists 300 files over pages that follow nextOffset, each page within the budget", async () => {
    await mkdir(join(dir, "src"));
    const names = Array.from(
      { length: 300 },
      (_, i) => `src/module-${String(i).padStart(3, "0")}.ts`,
    );
    await Promise.all(names.map((name) => writeFile(join(dir, name), "")));
    const budget = observationBudget(1_000);
    const seen: string[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const page = await listWorkspaceFiles(workspace, { offset }, undefined, budget);
      if ("ok" in page) throw new Error(page.error.message);
      expect(observedLength(page)).toBeLessThanOrEqual(1_000);
      seen.push(...page.files);
      if (page.truncated) expect(page.total).toBe(300);
      offset = page.nextOffset;
    }
    expect(seen).toEqual(names);
  });

  it("returns every match over pages that follow nextOffset, each page within the budget", async () => {
    const lines = Array.from({ length: 250 }, (_, i) => `const needle${i} = "找到 ${i}";`);
    await writeFile(join(dir, "many.ts"), lines.join("\n"));
    const budget = observationBudget(1_000);
    const seen: string[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const page = await searchWorkspace(
        workspace,
        { pattern: "needle", offset },
        undefined,
        budget,
      );
      if ("ok" in page) throw new Error(page.error.message);
      expect(observedLength(page)).toBeLessThanOrEqual(1_000);
      seen.push(...page.matches);
      offset = page.nextOffset;
    }
    expect(seen).toEqual(lines.map((line, i) => `many.ts:${i + 1}:${line}`));
  });
});

describe("run_command within the observation budget", () => {
  it("cuts the middle of a long output, keeps its head and tail, and says how to see the rest", async () => {
    const run = createRunCommand({
      policy: createSandboxPolicy({ workspace, allowCommands: ["node"] }),
      sandbox: { kind: "none" },
      approval: "deny",
      budget: observationBudget(2_000),
    });
    const result = await run({
      argv: [
        "node",
        "-e",
        "console.log('first'); for (let i = 0; i < 5000; i++) console.log('引号\"' + i); console.log('last')",
      ],
    });
    if (!("stdout" in result)) throw new Error("expected a result");
    expect(observedLength(result)).toBeLessThanOrEqual(2_000);
    expect(result).toMatchObject({
      exitCode: 0,
      truncated: true,
      note: expect.stringContaining("read_file"),
    });
    expect(result.stdout.startsWith("first\n")).toBe(true);
    expect(result.stdout.endsWith("last\n")).toBe(true);
    expect(result.stdout).toMatch(/\[… 省略 \d+ 字符（超出观察预算）…\]/);
  });

  it("keeps a cut output whole as an artifact (redacted, beyond the 30 kB a stream keeps otherwise) and names it", async () => {
    const secret = "ghp_R3alLookingTokenValue1234567890abcd";
    const redact = (text: string) => text.replaceAll(secret, "[REDACTED:github-token]");
    const kept: { text: string; tool: string }[] = [];
    const run = createRunCommand({
      policy: createSandboxPolicy({ workspace, allowCommands: ["node"] }),
      sandbox: { kind: "none" },
      approval: "deny",
      budget: observationBudget(2_000, redact),
      keepOutput: async (text, tool) => {
        kept.push({ text, tool });
        return `art-${kept.length}`;
      },
    });
    const result = await run({
      argv: [
        "node",
        "-e",
        `for (let i = 0; i < 20000; i++) console.log('line ' + i); console.log('${secret}'); console.error('warn')`,
      ],
    });
    if (!("stdout" in result)) throw new Error("expected a result");
    expect(observedLength(result, redact)).toBeLessThanOrEqual(2_000);
    expect(result).toMatchObject({
      truncated: true,
      artifact: "art-1",
      note: expect.stringContaining('read_artifact {"id":"art-1"'),
    });
    expect(kept).toHaveLength(1);
    expect(kept[0]?.tool).toBe("run_command");
    const whole = kept[0]?.text ?? "";
    // All 20,000 lines (~230 kB, far over 30 kB), the secret masked, stderr under its own line.
    expect(whole.startsWith("line 0\nline 1\n")).toBe(true);
    expect(whole).toContain("line 19999\n[REDACTED:github-token]\n");
    expect(whole).not.toContain(secret);
    expect(whole).toContain("\n--- stderr ---\nwarn\n");
  });

  it("a result that fits stores nothing; a store that declines leaves the cut result as without one", async () => {
    const calls: string[] = [];
    const make = (budget: number) =>
      createRunCommand({
        policy: createSandboxPolicy({ workspace, allowCommands: ["node"] }),
        sandbox: { kind: "none" },
        approval: "deny",
        budget: observationBudget(budget),
        keepOutput: async (text) => {
          calls.push(text);
          return undefined;
        },
      });
    expect(await make(2_000)({ argv: ["node", "-e", "console.log('hi')"] })).toMatchObject({
      stdout: "hi\n",
      truncated: false,
    });
    expect(calls).toEqual([]);
    const cut = await make(2_000)({
      argv: ["node", "-e", "for (let i = 0; i < 5000; i++) console.log(i)"],
    });
    expect(calls).toHaveLength(1);
    expect(cut).toMatchObject({ truncated: true, note: expect.stringContaining("read_file") });
    expect(cut).not.toHaveProperty("artifact");
  });

  it("leaves a result that fits as the command printed it, with no note", async () => {
    const run = createRunCommand({
      policy: createSandboxPolicy({ workspace, allowCommands: ["node"] }),
      sandbox: { kind: "none" },
      approval: "deny",
    });
    const result = await run({ argv: ["node", "-e", "console.log('hi')"] });
    expect(result).toEqual({
      exitCode: 0,
      signal: null,
      stdout: "hi\n",
      stderr: "",
      truncated: false,
      timedOut: false,
    });
  });
});

describe("observationBudget", () => {
  it("is the loop's default when none is given", () => {
    expect(observationBudget().maxChars).toBe(DEFAULT_MAX_OBSERVATION_CHARS);
  });

  it.each([999, 0, -1, 1.5, Number.NaN])(
    "refuses %s: too small or not a count to page in",
    (chars) => {
      expect(() => observationBudget(chars)).toThrow(/maxObservationChars/);
    },
  );
});
