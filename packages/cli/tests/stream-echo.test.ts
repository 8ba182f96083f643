import { createRedactor } from "@coding-agent/agent-core";
import { describe, expect, it } from "vitest";
import { createTextEcho } from "../src/stream-echo.ts";

const SECRET = `ghp_${"EchoedTokenAbc12".repeat(3)}`;

function echo() {
  const written: string[] = [];
  const shown = createTextEcho((text) => written.push(text), createRedactor({ secrets: [SECRET] }));
  return { shown, written, all: () => written.join("") };
}

describe("createTextEcho", () => {
  it("shows text as it arrives, before any line ends (a server that pauses mid-reply)", () => {
    const { shown, all } = echo();
    shown.onText("前一半的回复，");
    // Nothing else has arrived: the first half is on screen already.
    expect(all()).toBe("前一半的回复，");
    shown.onText("后一半。");
    shown.end();
    expect(all()).toBe("前一半的回复，后一半。\n");
  });

  it("holds back a token still being written, so a secret split over pieces is never shown in part", () => {
    const { shown, all } = echo();
    for (const piece of [
      "密钥是 ",
      SECRET.slice(0, 6),
      SECRET.slice(6, 20),
      SECRET.slice(20),
      " 结束",
    ]) {
      shown.onText(piece);
      expect(all()).not.toContain("ghp_");
    }
    shown.end();
    expect(all()).toContain("密钥是 [REDACTED");
    expect(all()).toContain(" 结束\n");
  });

  it("shows reasoning dimmed on its own lines, then the text", () => {
    const { shown, all } = echo();
    shown.onReasoning("先想一想。");
    shown.onReasoning("想好了。");
    shown.onText("答案是 42。");
    shown.end();
    expect(all()).toBe("\u001b[2m先想一想。\u001b[22m\u001b[2m想好了。\u001b[22m\n答案是 42。\n");
  });

  it("an ended reply leaves nothing behind for the next one", () => {
    const { shown, all } = echo();
    shown.onText("abc");
    shown.end();
    shown.onText("第二次");
    shown.end();
    expect(all()).toBe("abc\n第二次\n");
  });
});
