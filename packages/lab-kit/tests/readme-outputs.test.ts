import { describe, expect, it } from "vitest";
import type { TargetReport } from "../src/run/targets.ts";
import type { CommandRun } from "../src/verify/readme-commands.ts";
import {
  checkReadmeOutputs,
  countMarkedBlocks,
  lineMatches,
  readmeOutputsText,
} from "../src/verify/readme-outputs.ts";

const FILE = "/repo/labs/05-loop/tests/lab.test.ts";

const STARTER: TargetReport = {
  label: "05:starter",
  loadErrors: [],
  tests: [
    {
      name: "runAgent > writes the result back",
      file: FILE,
      state: "failed",
      failure: {
        kind: "assertion",
        message: "AssertionError: expected [] to deeply equal [ 'x' ]",
      },
    },
    { name: "runAgent > stops at maxSteps", file: FILE, state: "passed" },
  ],
};

const SOLUTION: TargetReport = {
  label: "05:solution",
  loadErrors: [],
  tests: STARTER.tests.map(({ name, file }) => ({ name, file, state: "passed" as const })),
};

const VERIFY = [
  "第 05 课 loop · 循环",
  "  ✓ 解答乱序再跑（seed 123）通过全部 2 个测试",
  "  ✓ 总项目测试通过：a.test.ts（41 个测试）",
  `  ✓ ${readmeOutputsText(3)}`,
  "  结论：第 05 课可靠",
  "  你自己的 starter（工作区版本，不影响以上结论）：",
  '    starter（与提交版本相同，还没有改动）：通过 1/2 个测试；第一个失败的是 "runAgent > writes the result back"',
];

const block = (mark: string | undefined, lines: readonly string[]) =>
  [...(mark === undefined ? [] : [`<!-- output: ${mark} -->`]), "```text", ...lines, "```"].join(
    "\n",
  );

const STARTER_BLOCK = [
  " ❯ ../tests/lab.test.ts (2 tests | 1 failed)",
  "     × writes the result back",
  "     ✓ stops at maxSteps",
  "",
  " FAIL  ../tests/lab.test.ts > runAgent > writes the result back",
  "AssertionError: expected [] to deeply equal [ 'x' ]",
  "",
  " Test Files  1 failed (1)",
  "      Tests  1 failed | 1 passed (2)",
];
const SOLUTION_BLOCK = [" ✓ ../tests/lab.test.ts (2 tests)", "      Tests  2 passed (2)"];
const VERIFY_BLOCK = VERIFY.map((line) =>
  line.replace("seed 123", "seed 99536").replace("41 个测试", "N 个测试"),
);

function readme(parts: { verify?: string[]; starter?: string[]; solution?: string[] }): string {
  return [
    "# 第 05 课",
    "",
    block("starter-test", parts.starter ?? STARTER_BLOCK),
    "",
    block("solution-test", parts.solution ?? SOLUTION_BLOCK),
    "",
    block("verify", parts.verify ?? VERIFY_BLOCK),
    "",
  ].join("\n");
}

const check = (text: string, commands: ReadonlyMap<number, CommandRun> = new Map()) =>
  checkReadmeOutputs(text, {
    verifyLines: VERIFY,
    starter: STARTER,
    solution: SOLUTION,
    commands,
  });

/** A README with one command and its cli block (the block's fence on line 5). */
const CLI_README = [
  "# 第 02 课",
  "```bash",
  'node bin.ts run "修复"; echo "exit=$?"',
  "```",
  block("cli", ["状态：completed（退出码 0）", "exit=0"]),
].join("\n");
const printed = (lines: readonly string[]) =>
  new Map<number, CommandRun>([[6, { ok: true, lines }]]);

describe("checkReadmeOutputs", () => {
  it("passes a README whose three marked blocks match the real runs, counting them", () => {
    expect(check(readme({}))).toEqual({ ok: true, text: readmeOutputsText(3) });
    expect(countMarkedBlocks(readme({}))).toBe(3);
  });

  it("fails a verify block that stops before the real output does, naming the missing line", () => {
    const result = check(readme({ verify: VERIFY_BLOCK.slice(0, 5) }));
    expect(result.ok).toBe(false);
    expect(result.text).toContain("你自己的 starter（工作区版本，不影响以上结论）：");
  });

  it("fails a verify block with a line that differs from the report", () => {
    const drifted = VERIFY_BLOCK.map((line) => line.replace("2 个测试", "3 个测试"));
    expect(check(readme({ verify: drifted })).text).toContain("通过全部 3 个测试");
  });

  it("fails a verify block with a fixed count where the report has another", () => {
    const fixed = VERIFY_BLOCK.map((line) => line.replace("N 个测试", "40 个测试"));
    expect(check(readme({ verify: fixed })).ok).toBe(false);
  });

  it("fails a starter excerpt whose failure message is not what the test reported", () => {
    const drifted = STARTER_BLOCK.map((line) => line.replace("[ 'x' ]", "[ 'y' ]"));
    const result = check(readme({ starter: drifted }));
    expect(result.ok).toBe(false);
    expect(result.text).toContain(
      "真实的失败是“AssertionError: expected [] to deeply equal [ 'x' ]”",
    );
  });

  it("accepts a failure message cut short with …", () => {
    const cut = STARTER_BLOCK.map((line) =>
      line.startsWith("AssertionError") ? "AssertionError: expected [] to deeply…" : line,
    );
    expect(check(readme({ starter: cut })).ok).toBe(true);
  });

  it("fails a starter excerpt that names a test the run passed as failing", () => {
    const wrong = [" FAIL  ../tests/lab.test.ts > runAgent > stops at maxSteps"];
    expect(check(readme({ starter: wrong })).text).toContain("在真实运行中没有失败");
  });

  it("fails wrong counts in the Tests line and in a file's row", () => {
    expect(check(readme({ starter: ["      Tests  2 failed | 0 passed (2)"] })).ok).toBe(false);
    expect(check(readme({ solution: [" ✓ ../tests/lab.test.ts (3 tests)"] })).ok).toBe(false);
    expect(check(readme({ starter: [" ❯ ../tests/lab.test.ts (2 tests | 2 failed)"] })).ok).toBe(
      false,
    );
  });

  it("refuses a line no report can confirm (a diff line)", () => {
    const result = check(readme({ starter: [...STARTER_BLOCK, '+   "x": 1,'] }));
    expect(result.text).toContain("不是能与测试报告核对的一行");
  });

  it("fails an unmarked block that looks like verify or test output", () => {
    const text = `${readme({})}\n${block(undefined, ["  结论：第 05 课可靠"])}\n`;
    expect(check(text).text).toContain("没有 <!-- output: … --> 标记");
    const tests = `${readme({})}\n${block(undefined, ["      Tests  1 failed (1)"])}\n`;
    expect(check(tests).ok).toBe(false);
  });

  it("fails an unknown mark", () => {
    expect(check(`${readme({})}\n${block("smoke", ["x"])}\n`).text).toContain('标记 "smoke" 未知');
  });

  it("leaves unmarked blocks of other kinds alone", () => {
    const text = `${readme({})}\n${block(undefined, ["pnpm verify:lesson 05"])}\n`;
    expect(check(text).ok).toBe(true);
  });
});

describe("checkReadmeOutputs: cli blocks", () => {
  it("passes a cli block that is exactly what its command printed", () => {
    const result = check(CLI_README, printed(["状态：completed（退出码 0）", "exit=0"]));
    expect(result).toEqual({ ok: true, text: readmeOutputsText(1) });
  });

  it("fails a cli block whose exit code drifted from the run, naming both lines", () => {
    const result = check(CLI_README, printed(["状态：completed（退出码 0）", "exit=3"]));
    expect(result.text).toContain("第 2 行是“exit=0”，命令打印的是“exit=3”");
  });

  it("fails a cli block that stops before the command's output does", () => {
    const result = check(CLI_README, printed(["状态：completed（退出码 0）", "exit=0", "多一行"]));
    expect(result.text).toContain("而命令还打印了：“多一行”");
  });

  it("does not let N stand for a number in a cli block", () => {
    const text = CLI_README.replace("exit=0\n```", "exit=N\n```");
    expect(check(text, printed(["状态：completed（退出码 0）", "exit=0"])).ok).toBe(false);
  });

  it("reports a command that could not run", () => {
    const failedRun = new Map<number, CommandRun>([
      [6, { ok: false, problem: "前面没有紧挨着的 ```bash 命令块" }],
    ]);
    expect(check(CLI_README, failedRun).text).toContain("前面没有紧挨着的");
  });

  it("fails an unmarked block that looks like CLI or smoke output", () => {
    for (const line of [
      "状态：blocked（被阻止，permission_denied）",
      "exit=4",
      '{"week":1,"ok":true}',
    ]) {
      expect(check(`${readme({})}\n${block(undefined, [line])}\n`).ok).toBe(false);
    }
  });
});

describe("lineMatches", () => {
  it("lets a standalone N stand for a number, and only there", () => {
    expect(lineMatches("（N 个测试）", "（32 个测试）")).toBe(true);
    expect(lineMatches("NODE_OPTIONS 2", "NODE_OPTIONS 3")).toBe(false);
    expect(lineMatches("（31 个测试）", "（32 个测试）")).toBe(false);
  });

  it("treats every seed number as the same", () => {
    expect(lineMatches("乱序再跑（seed 1）", "乱序再跑（seed 57897）")).toBe(true);
  });
});

describe("checkReadmeOutputs: excerpts", () => {
  const second = {
    name: "runAgent > stops on finish",
    file: FILE,
    state: "failed" as const,
    failure: { kind: "assertion" as const, message: "AssertionError: expected 2 to be 1" },
  };
  const twoFailures: TargetReport = { ...STARTER, tests: [...STARTER.tests, second] };
  const oneOfTwo = [
    " FAIL  ../tests/lab.test.ts > runAgent > writes the result back",
    "AssertionError: expected [] to deeply equal [ 'x' ]",
  ];
  const starterOnly = (lead: string | undefined, lines: readonly string[]) =>
    checkReadmeOutputs(
      [
        "# 第 05 课",
        "",
        ...(lead === undefined ? [] : [lead, ""]),
        block("starter-test", lines),
      ].join("\n"),
      { verifyLines: VERIFY, starter: twoFailures, solution: SOLUTION, commands: new Map() },
    );

  it("fails a block that shows some of the failures without saying it is an excerpt", () => {
    const result = starterOnly("修改之前的失败：", oneOfTwo);
    expect(result.ok).toBe(false);
    expect(result.text).toContain("块里列出 1 个失败的测试，真实运行有 2 个");
  });

  it("fails a bare （节选） that does not say which part", () => {
    expect(starterOnly("修改之前的失败（节选）：", oneOfTwo).ok).toBe(false);
  });

  it("passes an excerpt that says which part it shows", () => {
    expect(starterOnly("修改之前的失败（节选：第一个失败的测试）：", oneOfTwo).ok).toBe(true);
  });

  it("fails a cli excerpt whose lines are out of the order the command printed them", () => {
    const text = CLI_README.replace("```bash", "节选：两行\n\n```bash").replace(
      "状态：completed（退出码 0）\nexit=0",
      "exit=0\n状态：completed（退出码 0）",
    );
    const lines = ["状态：completed（退出码 0）", "exit=0"];
    const result = checkReadmeOutputs(text, {
      verifyLines: VERIFY,
      starter: STARTER,
      solution: SOLUTION,
      commands: new Map([[8, { ok: true, lines }]]),
    });
    expect(result.ok).toBe(false);
    expect(result.text).toContain("不在命令的输出里（或顺序不对）");
  });

  it("passes a cli excerpt whose lines appear in order in what the command printed", () => {
    const text = CLI_README.replace("```bash", "节选：最后一行\n\n```bash").replace(
      "状态：completed（退出码 0）\nexit=0",
      "exit=0",
    );
    const lines = ["状态：completed（退出码 0）", "exit=0"];
    expect(
      checkReadmeOutputs(text, {
        verifyLines: VERIFY,
        starter: STARTER,
        solution: SOLUTION,
        commands: new Map([[8, { ok: true, lines }]]),
      }).ok,
    ).toBe(true);
  });
});
