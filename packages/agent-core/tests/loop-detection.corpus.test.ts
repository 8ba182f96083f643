import { describe, expect, it } from "vitest";
import { DEFAULT_LOOP_WINDOW } from "../src/index.ts";
import { CORPUS, runCorpusCase } from "./support/loop-corpus.ts";

const legitimate = CORPUS.filter((corpusCase) => corpusCase.label === "legitimate");
const loops = CORPUS.filter((corpusCase) => corpusCase.label === "loop");

describe("createLoopDetection on the labelled corpus (a false positive fails)", () => {
  describe.each([
    ["with the workspace version", true],
    ["without a version getter", false],
  ])("%s", (_mode, withVersion) => {
    it.each(legitimate.map((corpusCase) => [corpusCase.name, corpusCase]))(
      "lets a legitimate run finish: %s",
      async (_name, corpusCase) => {
        const result = await runCorpusCase(corpusCase, { withVersion });
        expect(result).toMatchObject({ status: "completed", code: "finished" });
        expect(result.toolCalls).toBe(corpusCase.calls.length);
      },
    );

    const seen = withVersion ? loops : loops.filter((corpusCase) => !corpusCase.needsVersion);
    it.each(seen.map((corpusCase) => [corpusCase.name, corpusCase]))(
      "stops a loop with loop_detected: %s",
      async (_name, corpusCase) => {
        const result = await runCorpusCase(corpusCase, { withVersion });
        expect(result).toMatchObject({ status: "budget_exceeded", code: "loop_detected" });
        expect(result.reason).toContain("检测到循环");
        expect(result.toolCalls).toBeLessThan(corpusCase.calls.length);
      },
    );
  });

  it("does not see a loop of file-changing tools without a version getter", async () => {
    const polling = loops.find((corpusCase) => corpusCase.needsVersion) ?? loops[0];
    if (polling === undefined) throw new Error("corpus without loops");
    const result = await runCorpusCase(polling, { withVersion: false });
    expect(result.code).not.toBe("loop_detected");
  });

  it("holds a legitimate run longer than the default window, so forgetting is exercised", () => {
    const longest = Math.max(...legitimate.map((corpusCase) => corpusCase.calls.length));
    expect(longest).toBeGreaterThan(DEFAULT_LOOP_WINDOW);
  });
});
