// The learner's commands (pnpm lesson / lessons / verify:lesson) are root scripts; pnpm
// runs a script of the package it is in, so every workspace package delegates them to the
// root, and a learner inside labs/NN-slug/starter gets the command instead of pnpm's
// English "Command not found".
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { listLabs } from "../src/labs.ts";
import { ROOT_COMMANDS } from "../src/scaffold/lesson-templates.ts";

const run = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, "..", "..", "..");

interface PackageJson {
  readonly name: string;
  readonly scripts?: Record<string, string>;
  readonly dependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
}

async function readPackage(dir: string): Promise<PackageJson> {
  return JSON.parse(await readFile(path.join(dir, "package.json"), "utf8")) as PackageJson;
}

/** Every workspace package but the root, as pnpm itself lists them. */
async function workspacePackages(): Promise<string[]> {
  const { stdout } = await run("pnpm", ["ls", "-r", "--depth", "-1", "--json"], { cwd: repoRoot });
  const listed = JSON.parse(stdout) as { path: string }[];
  return listed.map((entry) => entry.path).filter((dir) => path.resolve(dir) !== repoRoot);
}

/** Runs pnpm in `cwd` without colours; its exit code and stderr. */
function pnpm(args: readonly string[], cwd: string): Promise<{ code: number; stderr: string }> {
  return run("pnpm", [...args], { cwd, env: { ...process.env, NO_COLOR: "1" } }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (error: { code: number; stderr: string }) => error,
  );
}

describe("learner commands from any folder", () => {
  it("has each delegated command as a root script", async () => {
    const root = await readPackage(repoRoot);
    for (const name of Object.keys(ROOT_COMMANDS)) {
      // The tools import capstone entries (cli/parse-args): resolved to their sources.
      // Node runs them itself (type stripping), after the Node version check.
      expect(root.scripts?.[name], name).toMatch(
        /^node --import @bootcamp\/lab-kit\/require-node --conditions=@coding-agent\/source scripts\/[\w-]+\.ts$/,
      );
    }
  });

  it("delegates them to the root in every workspace package", async () => {
    const dirs = await workspacePackages();
    expect(dirs.length).toBeGreaterThan(3);
    for (const dir of dirs) {
      const { name, scripts = {} } = await readPackage(dir);
      for (const [command, delegate] of Object.entries(ROOT_COMMANDS)) {
        expect(scripts[command], `${name}: add "${command}": "${delegate}" to its scripts`).toBe(
          delegate,
        );
      }
    }
  }, 30_000);

  it("writes no version in any package.json: the pnpm catalog holds them all", async () => {
    for (const dir of [repoRoot, ...(await workspacePackages())]) {
      const manifest = await readPackage(dir);
      const versions = { ...manifest.dependencies, ...manifest.devDependencies };
      for (const [dependency, version] of Object.entries(versions)) {
        expect(
          version,
          `${manifest.name}: ${dependency} should be "catalog:" (version in pnpm-workspace.yaml)`,
        ).toMatch(/^(catalog:|workspace:\*)$/);
      }
    }
  }, 30_000);

  it("answers pnpm lesson inside a lab's starter folder with the root's own command", async () => {
    const [lab] = await listLabs(repoRoot);
    expect(lab).toBeDefined();
    const result = await pnpm(["lesson", "hint", "99"], path.join(lab?.dir ?? repoRoot, "starter"));
    expect(result.stderr).not.toContain("not found");
    expect(result.stderr).toContain("没有编号为「99」的课程");
    expect(result.code).toBe(2);
  }, 240_000);

  it("answers pnpm verify:lesson for a lesson that does not exist with the usage, exit 2", async () => {
    const result = await pnpm(["--silent", "verify:lesson", "99"], repoRoot);
    expect(result.stderr).toContain("没有第 99 课。");
    expect(result.stderr).toContain("用法：pnpm verify:lesson <课号> | --all");
    expect(result.code).toBe(2);
  }, 240_000);
});
