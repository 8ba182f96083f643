import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  MIN_MARKED_CHARS,
  serializeObservation,
  stableStringify,
  TRUNCATION_MARKER,
  truncateMiddle,
} from "../src/serialize.ts";

/** Values `JSON.stringify` rejects or loses, mixed into arbitrary data. */
const awkward = fc.constantFrom<unknown>(
  undefined,
  () => 1,
  Symbol("s"),
  123n,
  Number.NaN,
  Number.NEGATIVE_INFINITY,
  new Error("boom", { cause: new TypeError("inner") }),
  new Map<unknown, unknown>([[{ k: 1 }, new Set([1n])]]),
  new Date(Number.NaN),
  new Uint8Array(4),
  Object.create(null),
);

const value = fc.oneof(
  fc.anything({
    withBigInt: true,
    withMap: true,
    withSet: true,
    withDate: true,
    withTypedArray: true,
    withSparseArray: true,
    withNullPrototype: true,
    withBoxedValues: true,
    withObjectString: true,
  }),
  fc.array(awkward, { maxLength: 5 }),
  fc.dictionary(fc.string(), awkward, { maxKeys: 5 }),
  // A cycle somewhere below the top.
  fc.jsonValue().map((data) => {
    const node: Record<string, unknown> = { data };
    node.self = { parent: node };
    return node;
  }),
);

const cap = fc.integer({ min: MIN_MARKED_CHARS, max: 400 });

describe("serializeObservation (properties)", () => {
  it("never throws and never exceeds the cap", () => {
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 400 }), (data, maxChars) => {
        const observation = serializeObservation(data, { maxChars });
        expect(observation.text.length).toBeLessThanOrEqual(maxChars);
        expect(observation.truncated).toBe(observation.originalLength > maxChars);
      }),
    );
  });

  it("gives valid JSON text (a string as it is), or a truncation whose marker says how much was cut", () => {
    fc.assert(
      fc.property(fc.oneof(value, fc.string()), cap, (data, maxChars) => {
        const full = typeof data === "string" ? data : stableStringify(data);
        const observation = serializeObservation(data, { maxChars });
        if (!observation.truncated) {
          expect(observation.text).toBe(full);
          if (typeof data !== "string") expect(() => JSON.parse(observation.text)).not.toThrow();
          return;
        }
        const match = TRUNCATION_MARKER.exec(observation.text);
        expect(match, "a cut text carries the marker").not.toBeNull();
        const [marker = "", omitted, original] = match ?? [];
        expect(Number(original)).toBe(full.length);
        const head = observation.text.slice(0, match?.index);
        const tail = observation.text.slice((match?.index ?? 0) + marker.length);
        expect(full.startsWith(head)).toBe(true);
        expect(full.endsWith(tail)).toBe(true);
        expect(head.length + Number(omitted) + tail.length).toBe(full.length);
      }),
    );
  });

  it("is stable: the same data gives the same text, whatever the key order", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 8 }), (record) => {
        const reversed = Object.fromEntries(Object.entries(record).reverse());
        expect(stableStringify(reversed)).toBe(stableStringify(record));
      }),
    );
  });
});

describe("truncateMiddle (properties)", () => {
  it("truncates once: a cut text is left as it is", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 600 }), cap, (text, maxChars) => {
        const once = truncateMiddle(text, maxChars);
        expect(truncateMiddle(once.text, maxChars).text).toBe(once.text);
      }),
    );
  });
});
