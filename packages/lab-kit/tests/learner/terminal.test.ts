import { describe, expect, it } from "vitest";
import { colorsFor, displayWidth, padToWidth } from "../../src/learner/terminal.ts";

describe("displayWidth", () => {
  it("counts CJK characters as two columns", () => {
    expect(displayWidth("最小 Agent")).toBe(10);
  });

  it("ignores colour escapes", () => {
    expect(displayWidth("\u001b[32m完成\u001b[39m")).toBe(4);
  });

  it("pads to a column count, not a character count", () => {
    expect(padToWidth("任务", 6)).toBe("任务  ");
  });
});

describe("colorsFor", () => {
  it("colours a terminal", () => {
    expect(colorsFor({ isTTY: true }, {}).red("x")).not.toBe("x");
  });

  it("does not colour a pipe", () => {
    expect(colorsFor({ isTTY: false }, {}).red("x")).toBe("x");
  });

  it("honours NO_COLOR in a terminal", () => {
    expect(colorsFor({ isTTY: true }, { NO_COLOR: "1" }).red("x")).toBe("x");
  });
});
