import { describe, expect, it } from "vitest";
import { createRedactor } from "../src/redact.ts";
import {
  MIN_MARKED_CHARS,
  serializeObservation,
  stableStringify,
  TRUNCATION_MARKER,
  truncateMiddle,
} from "../src/serialize.ts";

/** Length of the truncation marker inside `text` (0 when there is none). */
const markerLength = (text: string) => TRUNCATION_MARKER.exec(text)?.[0].length ?? 0;

describe("serializeObservation", () => {
  it("keeps a string as it is", () => {
    expect(serializeObservation("hello")).toEqual({
      text: "hello",
      truncated: false,
      originalLength: 5,
    });
  });

  it("renders objects as JSON with keys sorted at every depth", () => {
    expect(serializeObservation({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: 3 } }).text).toBe(
      '{"a":{"c":3,"d":[2,{"e":0,"f":1}]},"b":1}',
    );
  });

  it("gives the same text for the same data built in a different order", () => {
    const one = { x: 1, y: 2 };
    const two = { y: 2, x: 1 };
    expect(serializeObservation(one).text).toBe(serializeObservation(two).text);
  });

  it("marks a cycle instead of throwing", () => {
    const node: Record<string, unknown> = { name: "root" };
    node.self = node;
    node.list = [node];
    expect(serializeObservation(node).text).toBe(
      '{"list":["[Circular]"],"name":"root","self":"[Circular]"}',
    );
  });

  it("renders a shared, non-cyclic object every time it appears", () => {
    const shared = { v: 1 };
    expect(serializeObservation({ a: shared, b: shared }).text).toBe('{"a":{"v":1},"b":{"v":1}}');
  });

  it("renders BigInt, undefined, NaN, Infinity, symbols and functions", () => {
    const text = serializeObservation({
      big: 12345678901234567890n,
      missing: undefined,
      nan: Number.NaN,
      inf: Number.POSITIVE_INFINITY,
      sym: Symbol("s"),
      fn: function named() {},
    }).text;
    expect(JSON.parse(text)).toEqual({
      big: "12345678901234567890n",
      missing: "[undefined]",
      nan: "NaN",
      inf: "Infinity",
      sym: "[Symbol s]",
      fn: "[Function named]",
    });
  });

  it("renders an Error with name, message, own fields and cause", () => {
    const error = Object.assign(new Error("outer", { cause: new TypeError("inner") }), {
      code: "E_IO",
    });
    expect(JSON.parse(serializeObservation(error).text)).toEqual({
      cause: { message: "inner", name: "TypeError" },
      code: "E_IO",
      message: "outer",
      name: "Error",
    });
  });

  it("renders Map, Set, Date and binary data", () => {
    const text = serializeObservation({
      map: new Map([["k", 1]]),
      set: new Set(["a"]),
      date: new Date(0),
      bytes: new Uint8Array(3),
    }).text;
    expect(JSON.parse(text)).toEqual({
      bytes: "[Uint8Array 3 bytes]",
      date: "1970-01-01T00:00:00.000Z",
      map: { "[Map]": [["k", 1]] },
      set: { "[Set]": ["a"] },
    });
  });

  it("turns a throwing getter into a marker", () => {
    const hostile = {
      get boom(): never {
        throw new Error("getter exploded");
      },
    };
    expect(serializeObservation(hostile).text).toBe('{"boom":"[Unreadable: getter exploded]"}');
  });

  it("survives a proxy that throws on every trap", () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("no keys");
        },
      },
    );
    expect(serializeObservation({ hostile }).text).toBe('{"hostile":"[Unserializable: no keys]"}');
  });

  it("keeps a __proto__ key as data", () => {
    const value = JSON.parse('{"__proto__":{"polluted":true}}');
    expect(serializeObservation(value).text).toBe('{"__proto__":{"polluted":true}}');
  });

  it("renders undefined at the top level", () => {
    expect(serializeObservation(undefined).text).toBe('"[undefined]"');
  });

  it("bounds a 10 MB string, keeping head and tail around a marker with the original length", () => {
    const huge = `HEAD${"x".repeat(10 * 1024 * 1024)}TAIL`;
    const observation = serializeObservation(huge, { maxChars: 1_000 });
    expect(observation.truncated).toBe(true);
    expect(observation.originalLength).toBe(huge.length);
    expect(observation.text.length).toBeLessThanOrEqual(1_000);
    expect(observation.text.startsWith("HEAD")).toBe(true);
    expect(observation.text.endsWith("TAIL")).toBe(true);
    const omitted = huge.length - (observation.text.length - markerLength(observation.text));
    expect(observation.text).toContain(`[truncated: omitted ${omitted} of ${huge.length} chars]`);
  });

  it("uses an 8,000 character cap by default", () => {
    expect(serializeObservation("y".repeat(20_000)).text.length).toBeLessThanOrEqual(8_000);
  });

  it("redacts before cutting, so no half secret survives at a cut edge", () => {
    const secret = `ghp_${"a".repeat(36)}`;
    const text = `${"x".repeat(480)}${secret}${"y".repeat(1_000)}`;
    const observation = serializeObservation(text, {
      maxChars: 600,
      redact: createRedactor({ env: {} }),
    });
    expect(observation.text).not.toContain("ghp_");
    expect(observation.text).not.toContain("aaaaaaaaaa");
  });
});

describe("truncateMiddle", () => {
  it("truncates once: cutting a cut text again changes nothing", () => {
    const once = truncateMiddle("z".repeat(50_000), 500);
    const twice = truncateMiddle(once.text, 500);
    expect(twice).toEqual({ text: once.text, truncated: false, originalLength: once.text.length });
  });

  it("leaves text within the cap untouched", () => {
    expect(truncateMiddle("short", 5)).toEqual({
      text: "short",
      truncated: false,
      originalLength: 5,
    });
  });

  it("never splits a surrogate pair", () => {
    const text = "😀".repeat(2_000);
    const { text: cut } = truncateMiddle(text, 301);
    expect(cut).not.toMatch(
      /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
    );
  });

  it("states how many characters were cut, and head + tail + cut add up to the original", () => {
    const text = "abcdefghij".repeat(100);
    const { text: cut } = truncateMiddle(text, 200);
    const match = TRUNCATION_MARKER.exec(cut);
    expect(match?.[2]).toBe("1000");
    const kept = cut.length - markerLength(cut);
    expect(Number(match?.[1]) + kept).toBe(1000);
    expect(cut.length).toBeLessThanOrEqual(200);
    expect(cut.startsWith(text.slice(0, 10))).toBe(true);
  });

  it("keeps the whole marker at the smallest marked cap", () => {
    const cut = truncateMiddle("w".repeat(100_000_000), MIN_MARKED_CHARS).text;
    expect(cut).toMatch(TRUNCATION_MARKER);
    expect(cut.length).toBeLessThanOrEqual(MIN_MARKED_CHARS);
  });

  it("stays within a cap smaller than the marker", () => {
    expect(truncateMiddle("q".repeat(1_000), 10).text.length).toBeLessThanOrEqual(10);
  });
});

describe("stableStringify", () => {
  it("is deterministic for equal data", () => {
    expect(stableStringify({ b: [1, { d: 1, c: 2 }], a: "x" })).toBe(
      stableStringify({ a: "x", b: [1, { c: 2, d: 1 }] }),
    );
  });
});
