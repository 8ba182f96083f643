// Builds throwaway repositories of fixture labs for the learner-tool tests: a temp dir,
// `git init`, the labs written from the strings below, one commit. Never the real tree.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);
const LAB_KIT_MODULES = path.join(import.meta.dirname, "..", "..", "node_modules");

export const FIRST_TEST = "sum > adds all numbers";
export const SECOND_TEST = "sum > returns 0 for an empty list";
export const PASSING_TEST = "greet > greets by name";

/** The shared tests: one that the starter passes, two that are the exercise. */
export const LAB_TEST = `import { describe, expect, it } from "vitest";
import { greet, sum } from "@lab";

describe("greet", () => {
  it("greets by name", () => {
    expect(greet("Ada")).toBe("你好，Ada");
  });
});

describe("sum", () => {
  it("adds all numbers", () => {
    expect(sum([1, 2, 3])).toBe(6);
  });

  it("returns 0 for an empty list", () => {
    expect(sum([])).toBe(0);
  });
});
`;

/** The same tests with the exercise assertions weakened: what tampering looks like. */
export const WEAKENED_TEST = LAB_TEST.replace("toBe(6)", 'toBeTypeOf("number")').replace(
  "toBe(0)",
  'toBeTypeOf("number")',
);

function source(body: string): string {
  return `export function greet(name: string): string {
  return \`你好，\${name}\`;
}

export function sum(values: readonly number[]): number {
  // #region exercise
${body}
  // #endregion exercise
}
`;
}

/** The pristine starter: the exercise region returns a wrong value. */
export const STARTER_SOURCE = source(
  "  // TODO(lab-90): 把所有数加起来；空列表的和是 0。\n  return Number.NaN;",
);
/** A learner halfway: non-empty lists work, an empty list throws. */
export const PARTLY_DONE_SOURCE = source(
  "  return values.reduce((total, value) => total + value);",
);
/** The solution, also what a learner who finished has. */
export const SOLUTION_SOURCE = source(
  "  // 初始值 0 让空列表也有和。\n  return values.reduce((total, value) => total + value, 0);",
);

export const HINTS = [
  { text: "先读失败信息：它比较的是 sum 的返回值。" },
  { test: FIRST_TEST, text: "把数组里的每个数累加起来。" },
  { test: FIRST_TEST, text: "用 values.reduce 累加。" },
  { test: SECOND_TEST, text: "reduce 需要一个初始值。" },
];

function manifest(id: string, slug: string): object {
  return {
    id,
    slug,
    title: `求和练习 ${id}`,
    week: 1,
    starter: { failing: [FIRST_TEST, SECOND_TEST] },
    mutations: [
      {
        name: "drop-initial-value",
        description: "去掉初始值",
        file: "src/index.ts",
        find: "total + value, 0)",
        replace: "total + value)",
        breaks: [SECOND_TEST],
      },
    ],
    hints: HINTS,
    rubric: [{ criterion: "求和正确", proof: [FIRST_TEST] }],
    capstone: { package: "@demo/core", files: ["src/sum.ts"], tests: ["tests/sum.test.ts"] },
  };
}

/** How to lay out one fixture lab. */
export interface FixtureLab {
  readonly id: string;
  readonly slug?: string;
  /** Replaces fields of the manifest (e.g. to make it invalid). */
  readonly manifestPatch?: Record<string, unknown>;
  /** Whether `starter/node_modules` exists (as after `pnpm install`); default true. */
  readonly installed?: boolean;
}

/** A fixture repository and the paths the tests use. */
export interface FixtureRepo {
  readonly root: string;
  labDir(id: string): string;
  write(relative: string, text: string): Promise<void>;
  remove(): Promise<void>;
}

async function git(root: string, args: readonly string[]): Promise<void> {
  await execFileAsync("git", [...args], { cwd: root });
}

/**
 * `git init` (when `root` is not a repository yet), then one commit of everything under it
 * that is not ignored, by a fixture author whatever the machine's git settings.
 */
export async function commitAll(root: string, message: string): Promise<void> {
  await git(root, ["init", "--quiet"]);
  await git(root, ["add", "."]);
  await git(root, [
    "-c",
    "user.name=Fixture",
    "-c",
    "user.email=fixture@example.invalid",
    "-c",
    "commit.gpgsign=false",
    "commit",
    "--quiet",
    "-m",
    message,
  ]);
}

/** Creates and commits a repository holding the given labs, each pristine. */
export async function createFixtureRepo(labs: readonly FixtureLab[]): Promise<FixtureRepo> {
  const root = await mkdtemp(path.join(os.tmpdir(), "lab-kit-learner-"));
  const write = async (relative: string, text: string) => {
    const file = path.join(root, ...relative.split("/"));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
  };
  await write(".gitignore", "node_modules/\n.bootcamp/\n");
  // The fixture tests import `vitest`; resolve it as a real lab does, from node_modules.
  await symlink(LAB_KIT_MODULES, path.join(root, "node_modules"), "dir");
  const dirs = new Map<string, string>();
  for (const lab of labs) {
    const slug = lab.slug ?? "demo-sum";
    const dir = `labs/${lab.id}-${slug}`;
    dirs.set(lab.id, path.join(root, "labs", `${lab.id}-${slug}`));
    const data = { ...manifest(lab.id, slug), ...lab.manifestPatch };
    await write(`${dir}/lesson.json`, `${JSON.stringify(data, null, 2)}\n`);
    await write(`${dir}/README.md`, "# 求和练习\n");
    await write(`${dir}/tests/lab.test.ts`, LAB_TEST);
    for (const side of ["starter", "solution"] as const) {
      const name = `@demo/lab-${lab.id}-${side}`;
      await write(`${dir}/${side}/package.json`, `${JSON.stringify({ name, type: "module" })}\n`);
      await write(
        `${dir}/${side}/src/index.ts`,
        side === "starter" ? STARTER_SOURCE : SOLUTION_SOURCE,
      );
    }
    if (lab.installed !== false) await mkdir(path.join(root, dir, "starter", "node_modules"));
  }
  await commitAll(root, "fixture labs");
  return {
    root,
    labDir(id) {
      const dir = dirs.get(id);
      if (dir === undefined) throw new Error(`fixture has no lab ${id}`);
      return dir;
    },
    write,
    remove: () => rm(root, { recursive: true, force: true }),
  };
}

/** A stream that keeps what is written, for asserting a command's output. */
export function captureStream(isTTY = false): {
  write(text: string): boolean;
  isTTY: boolean;
  text(): string;
} {
  let buffer = "";
  return {
    isTTY,
    write(text: string) {
      buffer += text;
      return true;
    },
    text: () => buffer,
  };
}
