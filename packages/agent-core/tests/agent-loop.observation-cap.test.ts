import { describe, expect, it } from "vitest";
import { runAgent } from "../src/agent-loop.ts";
import { TRUNCATION_MARKER } from "../src/serialize.ts";
import type { ToolSet } from "../src/tools.ts";
import { call, replies } from "./fixtures/actions.ts";

describe("the loop's observation cap, a last resort", () => {
  it("says which part it cut and how to get it back, naming the tool", async () => {
    const text = Array.from({ length: 2_000 }, (_, line) => `line ${line + 1}`).join("\n");
    const tools: ToolSet = { read_file: { execute: () => ({ content: text, truncated: false }) } };
    const result = await runAgent(
      "读文件",
      replies(call("read_file", { path: "big.txt" }), { type: "finish", summary: "ok" }),
      tools,
      { maxSteps: 3 },
      undefined,
      { maxObservationChars: 2_000 },
    );
    const observation = result.messages.find((message) => message.role === "tool");
    expect(observation).toMatchObject({ ok: true, truncated: true });
    const content = observation?.role === "tool" && observation.ok ? observation.content : "";
    expect(content.length).toBeLessThanOrEqual(2_000);
    expect(content).toMatch(TRUNCATION_MARKER);
    expect(content).toMatch(
      /omitted \d+ of \d+ chars, \d+–\d+; read_file 的结果超出 maxObservationChars/,
    );
    expect(content).toContain("startLine/endLine");
  });

  it("leaves a result that fits as it is, with no marker", async () => {
    const tools: ToolSet = { echo: { execute: () => "short" } };
    const result = await runAgent(
      "说",
      replies(call("echo"), { type: "finish", summary: "ok" }),
      tools,
      {
        maxSteps: 3,
      },
    );
    expect(result.messages.find((message) => message.role === "tool")).toMatchObject({
      content: "short",
      truncated: false,
    });
  });
});
