import { afterEach, describe, expect, it } from "vitest";
import { insertLoopGuards } from "../src/run/loop-guard-transform.ts";
import { LOOP_GUARD_GLOBAL } from "../src/run/settings.ts";

const scope = globalThis as unknown as Record<string, (() => void) | undefined>;

/** Runs guarded `body` (a function body returning a value) with a guard that counts calls. */
async function runGuarded(body: string, limit = Number.POSITIVE_INFINITY) {
  let calls = 0;
  scope[LOOP_GUARD_GLOBAL] = () => {
    calls++;
    if (calls > limit) throw new Error("guard");
  };
  const guarded = insertLoopGuards(`async function main() {\n${body}\n}`, "lab.ts");
  if (guarded === undefined) throw new Error("no loop found");
  const AsyncFunction = (async () => {}).constructor as new (code: string) => () => unknown;
  const value = await new AsyncFunction(`${guarded.code}\nreturn main();`)();
  return { value, calls };
}

afterEach(() => {
  delete scope[LOOP_GUARD_GLOBAL];
});

describe("insertLoopGuards", () => {
  it.each([
    ["for", "let n = 0; for (let i = 0; i < 3; i++) { n++; } return n;", 3, 3],
    ["for without braces", "let n = 0; for (let i = 0; i < 3; i++) n++; return n;", 3, 3],
    ["for with an empty body", "let i = 0; for (; i < 3; i++); return i;", 3, 3],
    ["while", "let i = 0; while (i < 4) i++; return i;", 4, 4],
    ["do…while", "let i = 0; do { i++; } while (i < 2); return i;", 2, 2],
    ["do…while without braces", "let i = 0; do i++; while (i < 2); return i;", 2, 2],
    ["for…of", "let s = 0; for (const x of [1, 2, 3]) s += x; return s;", 6, 3],
    [
      "for…in",
      "const k = []; for (const key in { a: 1, b: 2 }) k.push(key); return k.join();",
      "a,b",
      2,
    ],
    [
      "continue",
      "let s = 0; for (let i = 0; i < 4; i++) { if (i % 2) continue; s += i; } return s;",
      2,
      4,
    ],
    [
      "a labelled continue out of a braceless inner loop",
      "let n = 0; outer: for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) { n++; continue outer; } return n;",
      3,
      6,
    ],
    [
      "a loop in an arrow function's expression body",
      "const f = (xs) => xs.map((x) => { let y = 0; while (y < x) y++; return y; }); return f([1, 2]).join();",
      "1,2",
      3,
    ],
    [
      "for await",
      "async function* g() { yield 1; yield 2; } let s = 0; for await (const x of g()) s += x; return s;",
      3,
      2,
    ],
    [
      "a loop in a generator",
      "function* ids() { let i = 0; while (true) yield i++; } const it = ids(); it.next(); it.next(); return it.next().value;",
      2,
      3,
    ],
    [
      "a string and a comment that spell a loop",
      '// while (true) {}\nconst s = "for (;;) {}"; let i = 0; while (i < 1) i++; return s.length + i;',
      12,
      1,
    ],
  ])("keeps the meaning of %s and guards every iteration", async (_name, body, value, calls) => {
    expect(await runGuarded(body)).toEqual({ value, calls });
  });

  it.each([
    ["for (;;) {}"],
    ["while (true);"],
    ["do {} while (true);"],
    ["outer: for (;;) for (;;) continue outer;"],
    ["function* g() { while (true) yield 1; } for (const x of g()) {}"],
    ["async function* g() { for (;;) yield 1; } for await (const x of g()) {}"],
  ])("stops the endless loop %s when the guard throws", async (body) => {
    await expect(runGuarded(body, 1_000)).rejects.toThrow("guard");
  });

  it("parses TypeScript and keeps every line where it was", () => {
    const source = [
      "// 中文注释：偏移按 UTF-16 计算 😀",
      "export function count(xs: readonly number[]): number {",
      "  let n: number = 0;",
      "  for (const x of xs) n += x as number;",
      "  return n;",
      "}",
    ].join("\n");
    const guarded = insertLoopGuards(source, "count.ts");
    expect(guarded?.code.split("\n")).toHaveLength(6);
    expect(guarded?.code.split("\n")[3]).toBe(
      "  for (const x of xs) {__labKitLoop$();n += x as number;}",
    );
    expect(guarded?.map.mappings).not.toBe("");
  });

  it("leaves a file that does not parse to vite's own transform, which reports the error", () => {
    expect(insertLoopGuards("for (;;) {\n  return a +;\n}\n", "broken.ts")).toBeUndefined();
  });

  it("leaves a file without loops alone", () => {
    expect(insertLoopGuards("export const doWhile = 1; // for", "x.ts")).toBeUndefined();
  });
});
