import { mkdtemp, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAgent, type TraceEvent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { describe, expect, it } from "vitest";
import {
  createFileArtifactStore,
  createReadArtifactTool,
  observationBudget,
  ReadArtifactInputSchema,
  readArtifact,
} from "../src/index.ts";

async function store() {
  const root = await mkdtemp(join(tmpdir(), "artifacts-"));
  const dir = join(root, "run", "artifacts");
  return { root, dir, store: createFileArtifactStore(dir) };
}

describe("createFileArtifactStore", () => {
  it("writes <dir>/<id>.txt with the text as given, readable only by its owner", async () => {
    const { dir, store: artifacts } = await store();
    const id = await artifacts.put("a\nb\n", { callId: "call_3_1", tool: "run_command" });
    expect(id).toBe("call_3_1-1");
    expect(await readFile(join(dir, `${id}.txt`), "utf8")).toBe("a\nb\n");
    expect((await stat(join(dir, `${id}.txt`))).mode & 0o777).toBe(0o600);
    expect(await artifacts.read(id)).toBe("a\nb\n");
  });

  it("never overwrites an artifact of an earlier store on the same folder", async () => {
    const { dir, store: first } = await store();
    await first.put("first", { callId: "call_1", tool: "t" });
    const second = createFileArtifactStore(dir);
    const id = await second.put("second", { callId: "call_1", tool: "t" });
    expect(id).toBe("call_1-2");
    expect((await readdir(dir)).sort()).toEqual(["call_1-1.txt", "call_1-2.txt"]);
  });

  it("numbers each base on its own: an id does not depend on what else the store holds", async () => {
    const { store: artifacts } = await store();
    const put = (callId: string) => artifacts.put(callId, { callId, tool: "t" });
    // One store per run takes the tools' kept outputs and the context budget's artifacts:
    // a replay, where the tools keep nothing, must still name call_2's artifact call_2-1.
    expect(await put("run_tests")).toBe("run_tests-1");
    expect(await put("call_2")).toBe("call_2-1");
    expect(await put("run_command")).toBe("run_command-1");
    expect(await put("run_tests")).toBe("run_tests-2");
    expect(await put("call_5")).toBe("call_5-1");
  });

  it("reads an id shaped like a path as missing, never outside its folder", async () => {
    const { root, store: artifacts } = await store();
    await writeFile(join(root, "secret.txt"), "outside");
    expect(await artifacts.read("../../secret")).toBeUndefined();
    expect(await artifacts.read("nope-1")).toBeUndefined();
  });
});

describe("readArtifact", () => {
  const lines = Array.from({ length: 500 }, (_, n) => `line ${n + 1} ${"x".repeat(20)}`).join("\n");

  it("pages whole lines within the observation budget and says where to go on", async () => {
    const { store: artifacts } = await store();
    const id = await artifacts.put(lines, { callId: "call_1", tool: "read_file" });
    const budget = observationBudget(1_000);
    const page = await readArtifact(artifacts, { id }, budget);
    expect(page).toMatchObject({ id, startLine: 1, totalLines: 500, truncated: true });
    expect(JSON.stringify(page).length).toBeLessThanOrEqual(1_000);
    const next = (page as { nextStartLine: number }).nextStartLine;
    expect((page as { content: string }).content.split("\n")).toHaveLength(next - 1);
    const rest = await readArtifact(artifacts, { id, startLine: 499, endLine: 500 }, budget);
    expect(rest).toMatchObject({
      content: lines.split("\n").slice(498).join("\n"),
      truncated: false,
    });
  });

  it("cuts a single line longer than the budget and says so", async () => {
    const { store: artifacts } = await store();
    const id = await artifacts.put("y".repeat(5_000), { callId: "call_1", tool: "t" });
    const page = await readArtifact(artifacts, { id }, observationBudget(1_000));
    expect(page).toMatchObject({ truncated: true, endLine: 1 });
    expect(JSON.stringify(page).length).toBeLessThanOrEqual(1_000);
  });

  it.each([["../secret"], ["a/b"], ["/etc/passwd"], [".hidden"]])(
    "refuses the id %s as invalid_input",
    async (id) => {
      const { store: artifacts } = await store();
      expect(await readArtifact(artifacts, { id })).toMatchObject({
        ok: false,
        error: { code: "invalid_input" },
      });
    },
  );

  it("answers not_found for an unknown id, and invalid_input past the last line", async () => {
    const { store: artifacts } = await store();
    expect(await readArtifact(artifacts, { id: "call_9-1" })).toMatchObject({
      error: { code: "not_found" },
    });
    const id = await artifacts.put("one", { callId: "c", tool: "t" });
    expect(await readArtifact(artifacts, { id, startLine: 3 })).toMatchObject({
      error: { code: "invalid_input" },
    });
    expect(ReadArtifactInputSchema.safeParse({ id, startLine: 3, endLine: 2 }).success).toBe(false);
  });
});

describe("read_artifact as a tool", () => {
  it("is concurrent: a reply's two reads both start before the first completes, results in call order", async () => {
    const { store: artifacts } = await store();
    const first = await artifacts.put("一\n", { callId: "call_1", tool: "run_command" });
    const second = await artifacts.put("二\n", { callId: "call_2", tool: "run_tests" });
    const read = (id: string) => ({ type: "tool_call", tool: "read_artifact", input: { id } });
    const provider = createScriptedProvider([
      { actions: [read(first), read(second)] },
      { action: { type: "finish", summary: "读完了" } },
    ]);
    const events: TraceEvent[] = [];
    const result = await runAgent(
      "读两个 artifact",
      provider,
      { read_artifact: createReadArtifactTool(artifacts) },
      { maxSteps: 3 },
      undefined,
      { trace: (event) => void events.push(event) },
    );
    expect(result.status).toBe("completed");
    // The loop starts a concurrent group before awaiting any of it: this order is not timing.
    const calls = events.flatMap((event) =>
      event.type === "tool_started" || event.type === "tool_completed"
        ? [`${event.type} ${event.callId}`]
        : [],
    );
    expect(calls).toEqual([
      "tool_started call_1_1",
      "tool_started call_1_2",
      "tool_completed call_1_1",
      "tool_completed call_1_2",
    ]);
    const contents = result.messages
      .filter((message) => message.role === "tool")
      .map((message) => JSON.parse("content" in message ? String(message.content) : "{}").content);
    expect(contents).toEqual(["一\n", "二\n"]);
  });
});
