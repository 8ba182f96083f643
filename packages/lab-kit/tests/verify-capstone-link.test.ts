import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capstoneLinkProblems, workspacePackages } from "../src/verify/capstone-link.ts";

let repo: string;

/** Writes files under the temp repository. */
async function write(files: Record<string, string>): Promise<void> {
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(repo, file)), { recursive: true });
    await writeFile(path.join(repo, file), text);
  }
}

beforeAll(async () => {
  repo = await mkdtemp(path.join(os.tmpdir(), "lab-kit-capstone-link-"));
  await write({
    "packages/core/package.json": JSON.stringify({
      name: "@demo/core",
      exports: { ".": "./src/index.ts", "./testing": "./src/testing/index.ts" },
    }),
    "packages/core/src/index.ts":
      'export { loop } from "./loop.ts";\nexport * from "./guard.ts";\n',
    "packages/core/src/loop.ts":
      'import { guard } from "./guard.ts";\nexport const loop = () => guard();\n',
    "packages/core/src/guard.ts": "export const guard = () => 1;\n",
    "packages/core/src/testing/index.ts": 'export { fake } from "./fake.ts";\n',
    "packages/core/src/testing/fake.ts": "export const fake = 1;\n",
    "packages/core/tests/direct.test.ts": 'import { guard } from "../src/guard.ts";\nvoid guard;\n',
    "packages/core/tests/entry.test.ts": 'import {\n  loop,\n} from "@demo/core";\nvoid loop;\n',
    "packages/core/tests/testing.test.ts":
      'import { fake } from "@demo/core/testing";\nvoid fake;\n',
    "packages/core/tests/loop-only.test.ts": 'import { loop } from "../src/loop.ts";\nvoid loop;\n',
  });
});

afterAll(() => rm(repo, { recursive: true, force: true }));

async function problems(files: string[], tests: string[]): Promise<string[]> {
  return capstoneLinkProblems(repo, { files, tests }, await workspacePackages(repo));
}

const UNLINKED =
  "没有导入 capstone.files 中的任何模块（直接导入，或经包入口转出）：它证明不了这一课的增量";

describe("capstoneLinkProblems", () => {
  it("accepts a test that imports a capstone file directly", async () => {
    expect(
      await problems(["packages/core/src/guard.ts"], ["packages/core/tests/direct.test.ts"]),
    ).toEqual([]);
  });

  it("accepts a test that imports it through the package entry's re-exports", async () => {
    expect(
      await problems(["packages/core/src/guard.ts"], ["packages/core/tests/entry.test.ts"]),
    ).toEqual([]);
    expect(
      await problems(
        ["packages/core/src/testing/fake.ts"],
        ["packages/core/tests/testing.test.ts"],
      ),
    ).toEqual([]);
  });

  it("does not follow plain imports: a test of one module does not prove another", async () => {
    expect(
      await problems(["packages/core/src/guard.ts"], ["packages/core/tests/loop-only.test.ts"]),
    ).toEqual([`packages/core/tests/loop-only.test.ts ${UNLINKED}`]);
  });

  it("names a capstone file that does not exist", async () => {
    expect(
      await problems(
        ["packages/core/src/guard.ts", "packages/core/src/gone.ts"],
        ["packages/core/tests/direct.test.ts"],
      ),
    ).toEqual(["capstone.files 中的 packages/core/src/gone.ts 不存在"]);
  });
});
