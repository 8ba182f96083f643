import { describe, expect, it } from "vitest";
import { createOutputCap } from "../src/sandbox/output-cap.ts";

describe("createOutputCap", () => {
  it("keeps everything under the budget, without a marker", () => {
    const cap = createOutputCap(10);
    cap.push(Buffer.from("abc"));
    cap.push(Buffer.from("def"));
    expect(cap.text()).toBe("abcdef");
    expect(cap.droppedBytes).toBe(0);
  });

  it("keeps the head and the tail and counts the middle, across chunks", () => {
    const cap = createOutputCap(6);
    for (const chunk of ["ab", "cdef", "ghij", "kl"]) cap.push(Buffer.from(chunk));
    expect(cap.text()).toBe("abc\n[… 省略 6 字节 …]\njkl");
    expect(cap.droppedBytes).toBe(6);
  });
});
