import { beforeAll, describe, expect, it } from "vitest";
import { LOOP_TIMEOUT_MESSAGE } from "../src/run/settings.ts";
import type { LabVerdict } from "../src/verify/check-line.ts";
import { buildVerifyRepo, type Edit, verdictsOf, verifyAll } from "./verify-fixture.ts";

const FIND = "for (const value of values) sum += value;";
const GATE = "变异门 skip-first（漏掉第一个数）";

interface Gate {
  find?: string;
  replace?: string;
  edits?: { find: string; replace: string }[];
  expect?: string;
}

/** The sound lab's one mutation, changed by `change`. */
function gate(change: (gate: Gate) => void): Edit {
  return {
    file: "lesson.json",
    edit: (text) => {
      const manifest = JSON.parse(text) as { mutations: Gate[] };
      const [first] = manifest.mutations;
      if (first === undefined) throw new Error("fixture lab has no mutation");
      change(first);
      return `${JSON.stringify(manifest, null, 2)}\n`;
    },
  };
}

/** The sound lab's one mutation, with another `find`/`replace` and optional `expect`. */
function mutation(find: string, replacement: string, expected?: "timeout"): Edit {
  return gate((first) => {
    first.find = find;
    first.replace = replacement;
    if (expected !== undefined) first.expect = expected;
  });
}

/** The sound lab's one mutation as small one-line edits instead of one find/replace. */
function edits(...pairs: [string, string][]): Edit {
  return gate((first) => {
    delete first.find;
    delete first.replace;
    first.edits = pairs.map(([find, replace]) => ({ find, replace }));
  });
}

let verdicts: LabVerdict[];
const failures = (id: string) => verdictsOf(verdicts).failures(id);
const checks = (id: string) =>
  verdictsOf(verdicts)
    .verdict(id)
    .checks.map((check) => check.text);

beforeAll(async () => {
  const built = await buildVerifyRepo("verify-gates", [
    {
      folder: "10-load-only",
      edits: [
        mutation("/** A name with a hash in front. */", 'throw new Error("变异后一加载就失败");'),
      ],
    },
    {
      folder: "11-type-error",
      edits: [mutation(FIND, "for (const value of values.slice(1)) sum += value.length;")],
    },
    {
      folder: "12-throws",
      edits: [
        mutation(
          FIND,
          `${FIND}\n  if (values.length > 2) throw new TypeError("变异：抛出而不是返回");`,
        ),
      ],
    },
    {
      folder: "13-slow-but-correct",
      edits: [
        mutation(
          FIND,
          `const until = Date.now() + 10_000;\n  while (Date.now() < until) sum += 0;\n  ${FIND}`,
        ),
      ],
    },
    {
      folder: "14-hang-declared",
      edits: [mutation(FIND, "while (values.length > 0) sum += 0;", "timeout")],
    },
    {
      folder: "15-timeout-declared-but-asserts",
      edits: [mutation(FIND, "for (const value of values.slice(1)) sum += value;", "timeout")],
    },
    {
      folder: "17-slow-then-wrong",
      edits: [
        mutation(
          FIND,
          "const until = Date.now() + 300;\n  while (Date.now() < until) sum += 0;\n  for (const value of values.slice(1)) sum += value;",
        ),
      ],
    },
    {
      folder: "18-small-edits",
      edits: [edits(["let sum = 0;", "let sum = -1;"], ["return sum;", "return sum + 2;"])],
    },
    {
      folder: "19-small-edit-found-twice",
      edits: [edits(["let sum = 0;", "let sum = -1;"], ["sum", "total"])],
    },
    {
      folder: "20-small-edit-not-found",
      edits: [edits(["let sum = 0;", "let sum = -1;"], ["return sum * 2;", "return 0;"])],
    },
    {
      folder: "21-small-edit-of-two-lines",
      edits: [edits(["let sum = 0;\n  for", "let sum = 1;\n  for"])],
    },
    {
      folder: "22-both-forms",
      edits: [gate((first) => (first.edits = [{ find: "let sum = 0;", replace: "let sum = 1;" }]))],
    },
    {
      folder: "16-hangs-while-importing",
      edits: [mutation("/** A name with a hash in front. */", "while (Date.now() > 0) {}")],
    },
  ]);
  verdicts = await verifyAll(built.repo);
  return built.cleanup;
}, 600_000);

describe("verify:lesson counts a gate as caught only when its tests fail the declared way", () => {
  it("does not count a mutant that only fails to load", () => {
    expect(failures("10")).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${GATE}：变异后无法加载 tests/lab\\.test\\.ts（加载错误：变异后一加载就失败.*），这不算抓住变异$`,
        ),
      ),
    ]);
  });

  it("rejects a mutant that does not typecheck, naming the first error", () => {
    expect(failures("11")).toEqual([
      `${GATE}：变异后的代码有 1 个类型错误，首个：solution/src/index.ts:5 TS2339 Property 'length' does not exist on type 'number'.`,
    ]);
  });

  it("does not count a test that fails by a thrown error", () => {
    expect(failures("12")).toEqual([
      `${GATE}："total > adds every value"（抛出错误：TypeError: 变异：抛出而不是返回） 应以断言失败，而不是抛出错误`,
    ]);
  });

  it("does not count a correct mutant that only runs past the one timeout", () => {
    expect(failures("13")).toEqual([
      `${GATE}："total > adds every value"（${LOOP_TIMEOUT_MESSAGE}） 应以断言失败，而不是超时；若这个变异本就让测试挂起，在清单中给这个变异门写 "expect": "timeout"`,
    ]);
  });

  it("judges a mutant that is slow but within the one timeout by how it fails: a slow wrong result is caught by assertion", () => {
    expect(failures("17")).toEqual([]);
    expect(checks("17")).toContain(`${GATE}：声明的 1 个测试全部断言失败`);
  });

  it('counts a hang as caught when the gate says "expect": "timeout"', () => {
    expect(failures("14")).toEqual([]);
    expect(checks("14")).toContain(`${GATE}：声明的 1 个测试全部超时，如清单所声明`);
  });

  it('rejects an assertion failure when the gate says "expect": "timeout"', () => {
    expect(failures("15")).toEqual([
      expect.stringMatching(
        new RegExp(`^${GATE}："total > adds every value"（断言失败：.*） 应超时，而不是断言失败$`),
      ),
    ]);
  });

  it("reports a mutant that loops for ever while importing as not loading, with the loop guard's message", () => {
    expect(failures("16")).toEqual([
      `${GATE}：变异后无法加载 tests/lab.test.ts（加载错误：${LOOP_TIMEOUT_MESSAGE}），这不算抓住变异`,
    ]);
  });

  it("applies a gate's small edits in order and judges the mutant they make", () => {
    expect(failures("18")).toEqual([]);
    expect(checks("18")).toContain(`${GATE}：声明的 1 个测试全部断言失败`);
  });

  it("rejects a small edit whose text occurs more than once, naming which edit", () => {
    expect(failures("19")).toEqual([
      `${GATE}：第 2 处修改在 solution/src/index.ts 中出现了 3 次，应恰好一次`,
    ]);
  });

  it("rejects a small edit whose text is not there, naming which edit", () => {
    expect(failures("20")).toEqual([`${GATE}：在 solution/src/index.ts 中找不到第 2 处修改`]);
  });

  it("rejects a small edit of more than one line as an invalid manifest", () => {
    expect(failures("21")).toEqual([
      expect.stringMatching(/^清单无效：.*mutations\[0\]\.edits\[0\]\.find: 一处修改只能是一行/),
    ]);
  });

  it("rejects a gate that writes both find/replace and edits as an invalid manifest", () => {
    expect(failures("22")).toEqual([
      expect.stringMatching(
        /^清单无效：.*mutations\[0\]\.edits: 变异门要么写 find 和 replace，要么写 edits.*二者选一$/,
      ),
    ]);
  });
});
