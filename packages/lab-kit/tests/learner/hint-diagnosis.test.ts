import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LearnerContext } from "../../src/learner/learner-context.ts";
import { runLessonCommand } from "../../src/learner/lesson-command.ts";
import { runLabTargets } from "../../src/run/runner.ts";
import {
  captureStream,
  commitAll,
  createFixtureRepo,
  FIRST_TEST,
  type FixtureRepo,
  PARTLY_DONE_SOURCE,
  SECOND_TEST,
  SOLUTION_SOURCE,
  STARTER_SOURCE,
} from "./fixture-repo.ts";

// A lab whose tests include one the pristine starter passes by accident (its placeholder
// touches nothing) and that a mistake inside the exercise region breaks. Each hint below
// runs the learner's starter in a real vitest process.
const KEEPS_LIST = "sum > leaves the list it sums unchanged";
const KEEPS_LIST_TEST = `import { describe, expect, it } from "vitest";
import { sum } from "@lab";

describe("sum", () => {
  it("leaves the list it sums unchanged", () => {
    const list = [3, 1, 2];
    sum(list);
    expect(list).toEqual([3, 1, 2]);
  });
});
`;
const EMPTIES_LIST = "在求和时把传入的数组清空了：调用方手里的列表被改掉。";
const NO_INITIAL = "累加没有初始值：空列表没有第一个数可以开始，直接抛错。";

/** The learner's mistake, inside the region only: sums right, but empties the caller's list. */
const REGION_BUG_SOURCE = STARTER_SOURCE.replace(
  "  return Number.NaN;",
  "  return (values as number[]).splice(0).reduce((total, value) => total + value, 0);",
);
/** The learner's edit outside the region: `greet` (line 2) says something else. */
const OUTSIDE_BUG_SOURCE = SOLUTION_SOURCE.replace("你好", "您好");

let repo: FixtureRepo;

beforeAll(async () => {
  const manifestPatch = {
    mutations: [
      {
        name: "empties-list",
        description: EMPTIES_LIST,
        file: "src/index.ts",
        find: "values.reduce",
        replace: "(values as number[]).splice(0).reduce",
        breaks: [KEEPS_LIST],
      },
      {
        name: "no-initial-value",
        description: NO_INITIAL,
        file: "src/index.ts",
        find: "total + value, 0)",
        replace: "total + value)",
        breaks: [SECOND_TEST],
      },
    ],
    rubric: [
      { criterion: "求和正确", proof: [FIRST_TEST] },
      { criterion: "求和不改动调用方的列表", proof: [KEEPS_LIST] },
    ],
  };
  repo = await createFixtureRepo([
    { id: "01", manifestPatch },
    { id: "02", manifestPatch },
    { id: "03", manifestPatch },
    { id: "04", manifestPatch },
  ]);
  for (const id of ["01", "02", "03", "04"]) {
    await repo.write(`labs/${id}-demo-sum/tests/keeps-list.test.ts`, KEEPS_LIST_TEST);
  }
  await commitAll(repo.root, "a test the starter passes by accident");
  await repo.write("labs/01-demo-sum/starter/src/index.ts", REGION_BUG_SOURCE);
  await repo.write("labs/02-demo-sum/starter/src/index.ts", OUTSIDE_BUG_SOURCE);
  await repo.write("labs/03-demo-sum/starter/src/index.ts", PARTLY_DONE_SOURCE);
}, 60_000);

afterAll(async () => {
  await repo.remove();
});

async function hint(id: string): Promise<string> {
  const stdout = captureStream();
  const context: LearnerContext = {
    cwd: repo.root,
    env: { NO_COLOR: "1" },
    stdout,
    stderr: captureStream(),
    runTargets: (targets) => runLabTargets(targets),
  };
  expect(await runLessonCommand(context, ["hint", id])).toBe(0);
  return stdout.text();
}

// Real vitest processes: a hang guard a loaded machine does not reach, as elsewhere.
describe("pnpm lesson hint on a test the pristine starter passed", { timeout: 120_000 }, () => {
  it("does not blame an edit outside the region for a mistake made inside it", async () => {
    const output = await hint("01");
    expect(output).toContain(`第一个失败的测试：${KEEPS_LIST}`);
    expect(output).not.toContain("之外改了代码");
    expect(output).toContain("练习区域之外你没有改动");
  });

  it("explains what the test checks and the lesson's mistake that breaks it", async () => {
    const output = await hint("01");
    expect(output).toContain("它检查的是：求和不改动调用方的列表");
    expect(output).toContain(EMPTIES_LIST);
  });

  it("points at no answer for a mistake inside the region", async () => {
    const output = await hint("01");
    expect(output).not.toContain("lesson diff");
    expect(output).not.toContain("values.reduce");
  });

  it("names the learner's edit outside the region, by file and line, when there is one", async () => {
    const output = await hint("02");
    expect(output).toContain("第一个失败的测试：greet > greets by name");
    expect(output).toContain("之外改了代码");
    expect(output).toContain("src/index.ts 第 2 行");
    expect(output).not.toContain("lesson diff");
  });
});

describe("pnpm lesson hint on an exercise test", { timeout: 120_000 }, () => {
  it("names the lesson's mistakes that fail the test once the learner has written code", async () => {
    const output = await hint("03");
    expect(output).toContain(`第一个失败的测试：${SECOND_TEST}`);
    expect(output).toContain("你已经写了代码");
    expect(output).toContain(NO_INITIAL);
  });

  it("lists no mistakes for a starter nobody has touched", async () => {
    const output = await hint("04");
    expect(output).toContain(`第一个失败的测试：${FIRST_TEST}`);
    expect(output).not.toContain("你已经写了代码");
  });
});
