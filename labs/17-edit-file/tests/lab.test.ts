import { createHash } from "node:crypto";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAgent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { createEditTools, createReadTools, createWorkspace } from "@coding-agent/tools";
import { locateOnce } from "@lab";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

describe("locateOnce", () => {
  it("finds exact text that occurs once: the index where it starts", () => {
    const text = "const a = 1;\nconst b = 2;\n";
    expect(locateOnce(text, "const b")).toEqual({ ok: true, index: 13 });
    expect(locateOnce(text, text), "整个文件也是恰好一处").toEqual({ ok: true, index: 0 });
  });

  it("matches byte for byte: other case, spacing or indentation is not_found_text", () => {
    const text = "function add(a, b) {\n  return a + b;\n}\n";
    for (const needle of [
      "Return a + b;",
      "return a+b;",
      "    return a + b;",
      "return a + b;\n}\n\n",
    ]) {
      expect(locateOnce(text, needle), `${JSON.stringify(needle)} 不在文件里`).toEqual({
        ok: false,
        reason: "not_found_text",
      });
    }
  });

  it("refuses text that occurs more than once: not_unique with the line of every match", () => {
    const text = "if (x) {\n  retry();\n}\n  retry();\n\n\n  retry();\n";
    expect(locateOnce(text, "retry();"), "每一处都要报出行号").toEqual({
      ok: false,
      reason: "not_unique",
      lines: [2, 4, 7],
    });
  });

  it("counts overlapping matches too: in aaa, aa starts twice", () => {
    expect(locateOnce("aaa", "aa"), "重叠的两处也是两处").toEqual({
      ok: false,
      reason: "not_unique",
      lines: [1, 1],
    });
    expect(locateOnce("  }\n}\n}\n", "}\n}"), "跨行重叠").toEqual({
      ok: false,
      reason: "not_unique",
      lines: [1, 2],
    });
  });

  it("numbers the lines of a CRLF or mixed file by their line feeds, as editors do", () => {
    expect(locateOnce("a\r\nx = 1\r\nb\r\nx = 1\r\n", "x = 1"), "CRLF 文件").toEqual({
      ok: false,
      reason: "not_unique",
      lines: [2, 4],
    });
    expect(locateOnce("a\r\nx = 1\nx = 1\r\n", "x = 1"), "CRLF 与 LF 混用的文件").toEqual({
      ok: false,
      reason: "not_unique",
      lines: [2, 3],
    });
  });
});

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "lab-17-")));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const sha256 = (bytes: string) => createHash("sha256").update(bytes).digest("hex");

/** The real read_file and edit_file of a workspace in `dir`, edit_file finding text with your locateOnce. */
function realTools() {
  const workspace = createWorkspace(dir);
  return {
    ...createReadTools(workspace),
    ...createEditTools({ workspace, approval: "auto", locateText: locateOnce }),
  };
}

const edit = (input: Record<string, unknown>) => ({
  action: { type: "tool_call", tool: "edit_file", input },
});
const finish = { action: { type: "finish", summary: "改好了" } };

async function observationsOf(script: unknown[]) {
  const result = await runAgent("修改文件", createScriptedProvider(script as never), realTools(), {
    maxSteps: 8,
  });
  expect(result.status, "运行没有完成").toBe("completed");
  return result.messages.filter((message) => message.role === "tool");
}

// Real files in a temp folder: the timeout only turns a hang into a failure.
describe("your locateOnce inside the real edit_file and runAgent", { timeout: 30_000 }, () => {
  it("an ambiguous edit comes back not_unique with every line; with more context the file changes in that one place, CRLF kept", async () => {
    const before = "function a() {\r\n  return 1;\r\n}\r\nfunction b() {\r\n  return 1;\r\n}\r\n";
    await writeFile(join(dir, "code.js"), before);
    const observations = await observationsOf([
      edit({ path: "code.js", old: "  return 1;", new: "  return 2;" }),
      edit({
        path: "code.js",
        old: "function b() {\n  return 1;",
        new: "function b() {\n  return 2;",
        expectedHash: sha256(before),
      }),
      finish,
    ]);
    expect(observations[0], "有歧义的编辑应当被拒绝，并给出每一处的行号").toMatchObject({
      ok: false,
      error: { code: "not_unique", message: expect.stringContaining("第 2、5 行") },
    });
    expect(observations[1], "带上下文之后应当恰好一处").toMatchObject({ ok: true });
    expect(await readFile(join(dir, "code.js"), "utf8"), "只改了 b，换行仍是 CRLF").toBe(
      "function a() {\r\n  return 1;\r\n}\r\nfunction b() {\r\n  return 2;\r\n}\r\n",
    );
  });

  it("an edit whose text overlaps itself is refused, and not a byte is written", async () => {
    const before = "if (a) {\n  if (b) {\n  }\n  }\n  }\n";
    await writeFile(join(dir, "nested.js"), before);
    const observations = await observationsOf([
      edit({ path: "nested.js", old: "  }\n  }", new: "  }" }),
      finish,
    ]);
    expect(observations[0], "重叠的两处也是歧义").toMatchObject({
      ok: false,
      error: { code: "not_unique", message: expect.stringContaining("第 3、4 行") },
    });
    expect(await readFile(join(dir, "nested.js"), "utf8"), "文件被改动了").toBe(before);
  });

  it("a file changed since it was read is refused as stale_file before any text is looked for", async () => {
    await writeFile(join(dir, "notes.txt"), "first\n");
    const readHash = sha256("first\n");
    await writeFile(join(dir, "notes.txt"), "first\nadded by someone else\n");
    const observations = await observationsOf([
      edit({ path: "notes.txt", old: "first", new: "1st", expectedHash: readHash }),
      finish,
    ]);
    expect(observations[0]).toMatchObject({ ok: false, error: { code: "stale_file" } });
    expect(await readFile(join(dir, "notes.txt"), "utf8")).toBe("first\nadded by someone else\n");
  });
});
