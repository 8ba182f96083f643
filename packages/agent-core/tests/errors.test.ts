import { describe, expect, it } from "vitest";
import { AbortError, errorMessage, isAbortError } from "../src/errors.ts";

describe("errorMessage", () => {
  it("gives an Error's message, or its name when the message is empty or not text", () => {
    expect(errorMessage(new Error("boom"))).toBe("boom");
    expect(errorMessage(new TypeError(""))).toBe("TypeError");
    const odd = new RangeError("x");
    Object.defineProperty(odd, "message", { value: 42 });
    expect(errorMessage(odd)).toBe("RangeError");
  });

  it("gives anything else as text, and a placeholder when even that throws", () => {
    expect(errorMessage("plain")).toBe("plain");
    expect(errorMessage(7)).toBe("7");
    const hostile = new Error("x");
    Object.defineProperty(hostile, "message", {
      get() {
        throw new Error("no");
      },
    });
    expect(errorMessage(hostile)).toBe("（无法读取的错误值）");
  });
});

describe("isAbortError", () => {
  it("knows ours and the DOM's AbortError, and nothing else", () => {
    expect(isAbortError(new AbortError("x"))).toBe(true);
    expect(isAbortError(new DOMException("x", "AbortError"))).toBe(true);
    expect(isAbortError(new Error("AbortError"))).toBe(false);
    expect(isAbortError({ name: "AbortError" })).toBe(false);
  });

  it("answers false, without throwing, for a Proxy whose traps throw", () => {
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error("trap");
        },
      },
    );
    expect(isAbortError(hostile)).toBe(false);
  });
});
