// verify keeps passing capstone test files while nothing under packages/ (or the lockfile,
// root configs, Node) changed, so an author who edits a lab does not wait for them again.
// Each fixture test appends a line to a marker file when it really runs.
import { appendFile, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCapstoneTests } from "../src/verify/capstone-tests.ts";
import { copyFixture } from "./fixture-repo.ts";

let root: string;
let repo: string;
let marker: string;

const PASSING = "packages/capstone/tests/sum.test.ts";
const FAILING = "packages/capstone/tests/broken.test.ts";

/** A test file that records each real run in the marker file, then asserts `ok`. */
function recordingTest(name: string, ok: boolean): string {
  return `import { appendFileSync } from "node:fs";
import { expect, it } from "vitest";

it("${name}", () => {
  appendFileSync(${JSON.stringify(marker)}, "${name}\\n");
  expect(${ok}).toBe(true);
});
`;
}

async function runs(): Promise<string[]> {
  const text = await readFile(marker, "utf8").catch(() => "");
  return text.split("\n").filter((line) => line !== "");
}

const capstone = (files: string[], cache: boolean) =>
  runCapstoneTests(repo, [{ packageName: "@fixture/capstone", files }], { cache });

beforeEach(async () => {
  ({ root, dir: repo } = await copyFixture("verify-repo"));
  marker = path.join(root, "runs.txt");
  await writeFile(path.join(repo, PASSING), recordingTest("passes", true));
  await writeFile(path.join(repo, FAILING), recordingTest("fails", false));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("runCapstoneTests with the cache", { timeout: 120_000 }, () => {
  it("runs a passing file once, then answers from the cache with the same result", async () => {
    const first = await capstone([PASSING], true);
    const second = await capstone([PASSING], true);
    expect(await runs()).toEqual(["passes"]);
    expect(second.get(PASSING)).toEqual(first.get(PASSING));
    expect(second.get(PASSING)).toMatchObject({ passed: 1, problems: [] });
  });

  it("runs it again once anything under packages/ changed", async () => {
    await capstone([PASSING], true);
    await appendFile(path.join(repo, "packages/capstone/src/sum.ts"), "// changed\n");
    await capstone([PASSING], true);
    expect(await runs()).toEqual(["passes", "passes"]);
  });

  it("never keeps a failing file", async () => {
    await capstone([FAILING], true);
    const again = await capstone([FAILING], true);
    expect(await runs()).toEqual(["fails", "fails"]);
    expect(again.get(FAILING)?.problems).toEqual(['测试失败："fails"']);
  });

  it("runs everything without the cache (verify --no-cache)", async () => {
    await capstone([PASSING], true);
    await capstone([PASSING], false);
    expect(await runs()).toEqual(["passes", "passes"]);
  });

  it("runs again when the cache file is not what it wrote", async () => {
    await capstone([PASSING], true);
    await writeFile(path.join(repo, ".lab-kit", "capstone-cache.json"), "{ not json");
    await capstone([PASSING], true);
    expect(await runs()).toEqual(["passes", "passes"]);
  });
});
