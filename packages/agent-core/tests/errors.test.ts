import { describe, expect, it } from "vitest";
import { AbortError, errorMessage, errorText, isAbortError } from "../src/errors.ts";

describe("errorMessage", () => {
  it("gives an Error's message, or its name when the message is empty or not text", () => {
    expect(errorMessage(new Error("boom"))).toBe("boom");
    expect(errorMessage(new TypeError(""))).toBe("TypeError");
    const odd = new RangeError("x");
    Object.defineProperty(odd, "message", { value: 42 });
    expect(errorMessage(odd)).toBe("RangeError");
    // A list has a length too: it is still no message.
    Object.defineProperty(odd, "message", { value: ["listed"] });
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

describe("errorText", () => {
  it("gives a text as it is and any other primitive as String gives it", () => {
    expect(errorText("plain")).toBe("plain");
    expect(errorText(undefined)).toBe("undefined");
    expect(errorText(null)).toBe("null");
    expect(errorText(10n)).toBe("10");
    expect(errorText(Symbol("s"))).toBe("Symbol(s)");
  });

  it("gives an Error's message and any other object as JSON with sorted keys", () => {
    expect(errorText(new Error("boom"))).toBe("boom");
    expect(errorText({ b: 1, a: "x" })).toBe('{"a":"x","b":1}');
  });

  it("never throws: a revoked Proxy gives a placeholder, a throwing getter a marked field", () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(errorText(proxy)).toBe("（无法读取的错误值）");
    const broken = {
      get detail() {
        throw new Error("no");
      },
    };
    expect(errorText(broken)).toBe('{"detail":"[Unreadable: no]"}');
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
