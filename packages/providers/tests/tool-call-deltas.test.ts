/**
 * `addToolCallDelta` (lesson 38): the streamed tool-call deltas of an OpenAI-compatible
 * reply are joined by `index`, never by arrival, so the interleaved deltas of parallel calls
 * stay apart and a server that repeats a call's id in every delta still makes one call.
 */
import { describe, expect, it } from "vitest";
import { addToolCallDelta, type ToolCallDelta, type ToolCallParts } from "../src/openai-stream.ts";

function assemble(deltas: readonly ToolCallDelta[]) {
  const calls = new Map<number, ToolCallParts>();
  for (const delta of deltas) addToolCallDelta(calls, delta);
  return [...calls.entries()].map(([index, call]) => ({
    index,
    id: call.id,
    name: call.name,
    arguments: call.whole ?? call.pieces.join(""),
  }));
}

describe("addToolCallDelta", () => {
  it("keeps interleaved deltas apart by index, and a repeated id is the same call", () => {
    expect(
      assemble([
        { index: 1, id: "b", function: { name: "list_files", arguments: '{"dir":' } },
        { index: 0, id: "a", function: { name: "read_file", arguments: "" } },
        { index: 0, id: "a", function: { name: "read_file", arguments: '{"path":"x"}' } },
        { index: 1, function: { arguments: '"src"}' } },
      ]),
    ).toEqual([
      { index: 1, id: "b", name: "list_files", arguments: '{"dir":"src"}' },
      { index: 0, id: "a", name: "read_file", arguments: '{"path":"x"}' },
    ]);
  });

  it("keeps an object's arguments whole and ignores a null name or id", () => {
    expect(
      assemble([
        { index: 0, id: null, function: { name: "read_file", arguments: { path: "a" } } },
        { index: 0, id: "late", function: { name: null, arguments: null } },
      ]),
    ).toEqual([{ index: 0, id: "late", name: "read_file", arguments: { path: "a" } }]);
  });
});
