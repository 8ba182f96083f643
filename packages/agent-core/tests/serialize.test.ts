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

  it("renders 32 levels of nesting and marks the 33rd as [MaxDepth]", () => {
    /** `levels` arrays, each inside the one before. */
    const nest = (levels: number): unknown => (levels === 1 ? [] : [nest(levels - 1)]);
    expect(stableStringify(nest(32))).toBe(`${"[".repeat(32)}${"]".repeat(32)}`);
    expect(stableStringify(nest(33))).toBe(`${"[".repeat(32)}"[MaxDepth]"${"]".repeat(32)}`);
    expect(stableStringify({ a: nest(32) })).toBe(
      `{"a":${"[".repeat(31)}"[MaxDepth]"${"]".repeat(31)}}`,
    );
  });

  it("renders an invalid date, a RegExp, an ArrayBuffer and a DataView", () => {
    expect(
      JSON.parse(
        stableStringify({
          bad: new Date(Number.NaN),
          pattern: /a+b/gi,
          buffer: new ArrayBuffer(4),
          view: new DataView(new ArrayBuffer(2)),
        }),
      ),
    ).toEqual({
      bad: "[Invalid Date]",
      buffer: "[ArrayBuffer 4 bytes]",
      pattern: "/a+b/gi",
      view: "[DataView 2 bytes]",
    });
  });

  it("renders a symbol without a description and an anonymous function", () => {
    expect(stableStringify([Symbol(), () => 1, () => {}])).toBe(
      '["[Symbol ]","[Function anonymous]","[Function anonymous]"]',
    );
  });

  it("renders the keys and values of a Map, objects included", () => {
    expect(stableStringify(new Map([[{ id: 1 }, new Set([2])]]))).toBe(
      '{"[Map]":[[{"id":1},{"[Set]":[2]}]]}',
    );
  });

  it("names what a getter threw even when it is not an Error, or cannot be read", () => {
    const value = {
      get text(): never {
        throw "plain text";
      },
      get hostile(): never {
        throw {
          toString() {
            throw new Error("again");
          },
        };
      },
    };
    expect(stableStringify(value)).toBe(
      '{"hostile":"[Unreadable: unknown error]","text":"[Unreadable: plain text]"}',
    );
  });

  it("turns a redactor that throws into an [Unserializable] text, not an exception", () => {
    const observation = serializeObservation("x", {
      redact: () => {
        throw new Error("redactor broke");
      },
    });
    expect(observation).toEqual({
      text: "[Unserializable: redactor broke]",
      truncated: false,
      originalLength: 32,
    });
  });

  it("renders null at any depth, and an object whose getters are named like an Error's as data", () => {
    expect(stableStringify({ a: null, b: [null] })).toBe('{"a":null,"b":[null]}');
    const errorLike = {
      name: "plain",
      get message(): never {
        throw new Error("no message");
      },
    };
    expect(stableStringify(errorLike)).toBe(
      '{"message":"[Unreadable: no message]","name":"plain"}',
    );
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

describe("options.omittedHint", () => {
  const text = `${"a".repeat(5_000)}${"b".repeat(5_000)}`;

  it("names the omitted characters and the call that brings them back, within maxChars", () => {
    const cut = serializeObservation(text, {
      maxChars: 1_000,
      omittedHint: "read_file startLine: 40",
    });
    expect(cut.text.length).toBeLessThanOrEqual(1_000);
    const match = TRUNCATION_MARKER.exec(cut.text);
    expect(match).not.toBeNull();
    const head = cut.text.slice(0, match?.index);
    const omitted = Number(match?.[1]);
    expect(match?.[0]).toContain(
      `omitted ${omitted} of 10000 chars, ${head.length + 1}–${head.length + omitted}; read_file startLine: 40]`,
    );
    // The range is exactly what is missing: head, omitted part and tail make the text.
    const tail = cut.text.slice((match?.index ?? 0) + (match?.[0].length ?? 0));
    expect(head + text.slice(head.length, head.length + omitted) + tail).toBe(text);
  });

  it("keeps the marker on one line and the regex whole: brackets and line breaks in a hint become spaces", () => {
    const cut = serializeObservation(text, { maxChars: 1_000, omittedHint: "a]\nb" });
    expect(TRUNCATION_MARKER.exec(cut.text)?.[0]).toContain("; a  b]…");
  });

  it("leaves out a hint that would take more than half the room, keeping the plain marker", () => {
    const cut = serializeObservation(text, { maxChars: 200, omittedHint: "x".repeat(150) });
    expect(cut.text.length).toBeLessThanOrEqual(200);
    expect(TRUNCATION_MARKER.exec(cut.text)?.[0]).toMatch(/chars\]…\n$/);
  });

  it("changes nothing without a hint: the marker is the one lab 07 writes", () => {
    expect(truncateMiddle(text, 1_000).text).toContain("\n…[truncated: omitted ");
    expect(TRUNCATION_MARKER.exec(truncateMiddle(text, 1_000).text)?.[0]).toMatch(
      /^\n…\[truncated: omitted \d+ of 10000 chars\]…\n$/,
    );
  });
});

describe("truncateMiddle's cut points", () => {
  const marker = (omitted: number, of: number) =>
    `\n…[truncated: omitted ${omitted} of ${of} chars]…\n`;

  it("keeps one more character in the head than in the tail when the room is odd", () => {
    const text = "abcdefghij".repeat(100);
    // Room: 200 minus the widest marker (43) = 157, so 79 in the head and 78 in the tail.
    expect(truncateMiddle(text, 200)).toEqual({
      text: `${text.slice(0, 79)}${marker(843, 1000)}${text.slice(1000 - 78)}`,
      truncated: true,
      originalLength: 1000,
    });
  });

  // Each text is 200 characters; the widest marker is 41, so a cap of 101 leaves a head of
  // 30 and a tail of 30, 102 a head of 31 and a tail of 30, 103 a head and a tail of 31.
  const pairsThenAscii = (pair: string) => `${pair.repeat(50)}${"x".repeat(100)}`;
  const asciiThenPairs = (pair: string) => `${"x".repeat(100)}${pair.repeat(50)}`;
  it.each([
    ["a head ending inside 😀 moves back one", pairsThenAscii("😀"), 102, 30, 30],
    ["a head ending inside U+10000 moves back one", pairsThenAscii("\u{10000}"), 102, 30, 30],
    ["a head ending inside U+10FFFF moves back one", pairsThenAscii("\u{10FFFF}"), 102, 30, 30],
    ["a head ending after a whole pair stays", pairsThenAscii("\u{10000}"), 101, 30, 30],
    ["a tail starting inside 😀 moves forward one", asciiThenPairs("😀"), 103, 31, 30],
    ["a tail starting inside U+10000 moves forward one", asciiThenPairs("\u{10000}"), 103, 31, 30],
    [
      "a tail starting inside U+10FFFF moves forward one",
      asciiThenPairs("\u{10FFFF}"),
      103,
      31,
      30,
    ],
    ["a tail starting at a whole pair stays", asciiThenPairs("\u{10FFFF}"), 101, 30, 30],
    [
      "U+D7FF and U+E000 (no surrogates) never move a cut",
      `${"\uD7FF".repeat(100)}${"\uE000".repeat(100)}`,
      103,
      31,
      31,
    ],
  ])("%s", (_name, text, maxChars, head, tail) => {
    expect(truncateMiddle(text, maxChars).text).toBe(
      `${text.slice(0, head)}${marker(200 - head - tail, 200)}${text.slice(200 - tail)}`,
    );
  });

  it("checks the character before the head's cut, not the one after it", () => {
    // A cap of 102 leaves a head of 31: a pair sits at 30-31, plain text around it.
    const text = `${"x".repeat(30)}😀${"x".repeat(168)}`;
    expect(truncateMiddle(text, 102).text).toBe(
      `${text.slice(0, 30)}${marker(140, 200)}${text.slice(170)}`,
    );
  });

  it("cuts the marker itself hard when the cap is below it", () => {
    expect(truncateMiddle("q".repeat(1_000), 10)).toEqual({
      text: "\n…[truncat",
      truncated: true,
      originalLength: 1000,
    });
  });
});

describe("stableStringify", () => {
  it("is deterministic for equal data", () => {
    expect(stableStringify({ b: [1, { d: 1, c: 2 }], a: "x" })).toBe(
      stableStringify({ a: "x", b: [1, { c: 2, d: 1 }] }),
    );
  });
});
