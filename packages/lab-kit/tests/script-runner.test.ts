// The root scripts run bundled (script-runner.js): a bundle must behave as the sources do
// (their own import.meta, their own npm packages, their stack traces), be rebuilt whenever
// anything it was built from changes, and never run when it cannot be faithful.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scriptBundle } from "../src/script-runner.js";

const run = promisify(execFile);
const packageDir = path.resolve(import.meta.dirname, "..");
const repoRoot = path.resolve(packageDir, "..", "..");
const RUNNER = path.join(packageDir, "src", "script-runner.js");

/**
 * A small repository inside this package (so `zod` resolves from lab-kit's node_modules):
 * a script importing a helper that reports its own location, and an npm package.
 */
let root: string;
let cacheDir: string;
const script = () => path.join(root, "scripts", "hello.ts");
const helper = () => path.join(root, "lib", "where.ts");

async function writeFixture(files: Record<string, string>): Promise<void> {
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
}

/** Runs `entry` through `runScript` in a new Node process; stdout, stderr and exit code. */
async function runThrough(
  entry: string,
  args: readonly string[] = [],
): Promise<{ stdout: string; stderr: string; code: number }> {
  const code = `import { runScript } from ${JSON.stringify(RUNNER)};
await runScript(${JSON.stringify(entry)}, { repoRoot: ${JSON.stringify(root)}, cacheDir: ${JSON.stringify(cacheDir)}, args: ${JSON.stringify(args)} });`;
  try {
    const { stdout, stderr } = await run(process.execPath, ["--input-type=module", "-e", code], {
      cwd: root,
      env: { ...process.env, LAB_KIT_SCRIPT_DEBUG: "1" },
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
  }
}

beforeAll(async () => {
  await mkdir(path.join(packageDir, ".lab-kit"), { recursive: true });
  root = await mkdtemp(path.join(packageDir, ".lab-kit", "script-runner-"));
  cacheDir = path.join(root, "cache");
  await writeFixture({
    "package.json": `${JSON.stringify({ name: "fixture", type: "module" })}\n`,
    "lib/where.ts": [
      "export const where = { dir: import.meta.dirname, file: import.meta.filename, url: import.meta.url };",
      "export function fail(): never {",
      '  throw new Error("boom from where.ts");',
      "}",
      "",
    ].join("\n"),
    "scripts/hello.ts": [
      'import { z } from "zod";',
      'import { where } from "../lib/where.ts";',
      "const args: string[] = process.argv.slice(2);",
      "process.stdout.write(JSON.stringify({ where, args, argv1: process.argv[1], zod: typeof z.string }));",
      "",
    ].join("\n"),
  });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("runScript", () => {
  it("runs a script as its sources would: own import.meta, argv and npm packages", async () => {
    const result = await runThrough(script(), ["05", "--seed", "1"]);
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual({
      where: {
        dir: path.dirname(helper()),
        file: helper(),
        url: `file://${helper()}`,
      },
      args: ["05", "--seed", "1"],
      argv1: script(),
      zod: "function",
    });
    // Bundled, not run through the fallback: the cache holds it.
    expect((await readdir(cacheDir)).filter((file) => file.endsWith(".mjs"))).toHaveLength(1);
  });

  it("keeps the npm package as the one file it resolves to, not a copy", async () => {
    const bundle = await readFile(
      await scriptBundle(script(), { repoRoot: root, cacheDir }),
      "utf8",
    );
    expect(bundle).toMatch(/from "file:\/\/[^"]*\/node_modules\/[^"]*zod[^"]*"/);
    expect(bundle).not.toContain("ZodString");
  });

  it("names the source file and line in a stack trace", async () => {
    await writeFixture({
      "scripts/crash.ts": 'import { fail } from "../lib/where.ts";\nfail();\n',
    });
    const result = await runThrough(path.join(root, "scripts", "crash.ts"));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("boom from where.ts");
    expect(result.stderr).toContain(`${helper()}:3`);
  });

  it("falls back to tsx, and still runs, when a source uses import.meta beyond its location", async () => {
    await writeFixture({
      "scripts/resolve.ts":
        'process.stdout.write(import.meta.resolve("zod").startsWith("file:") ? "ok" : "no");\n',
    });
    const entry = path.join(root, "scripts", "resolve.ts");
    await expect(scriptBundle(entry, { repoRoot: root, cacheDir })).rejects.toThrow(
      "import.meta 的用法无法打包",
    );
    const result = await runThrough(entry);
    expect(result.stdout).toBe("ok");
    expect(result.stderr).toContain("import.meta 的用法无法打包");
  });

  it("refuses a computed dynamic import, whose path a bundle would change", async () => {
    await writeFixture({
      "scripts/computed.ts": 'const name = "./where.ts";\nawait import("../lib/" + name);\n',
    });
    await expect(
      scriptBundle(path.join(root, "scripts", "computed.ts"), { repoRoot: root, cacheDir }),
    ).rejects.toThrow("动态 import 的路径不是字面量");
  });
});

describe("scriptBundle's cache", () => {
  it("reuses a bundle while nothing it was built from changes", async () => {
    const first = await scriptBundle(script(), { repoRoot: root, cacheDir });
    const before = (await stat(first)).mtimeMs;
    const second = await scriptBundle(script(), { repoRoot: root, cacheDir });
    expect(second).toBe(first);
    expect((await stat(second)).mtimeMs).toBe(before);
  });

  it("rebuilds when an imported source changes, and removes the old bundles (its own only)", async () => {
    const first = await scriptBundle(script(), { repoRoot: root, cacheDir });
    // One a concurrent build left behind, and another script's whose name starts alike.
    const orphan = path.join(cacheDir, "hello-0123456789abcdef.mjs");
    const other = path.join(cacheDir, "hello-world-0123456789abcdef.mjs");
    await writeFile(orphan, "");
    await writeFile(other, "");
    const original = await readFile(helper(), "utf8");
    await writeFile(helper(), original.replace("{ dir:", "{ edited: true, dir:"));
    const second = await scriptBundle(script(), { repoRoot: root, cacheDir });
    expect(second).not.toBe(first);
    expect(await readFile(second, "utf8")).toContain("edited: true");
    await expect(stat(first)).rejects.toThrow();
    await expect(stat(orphan)).rejects.toThrow();
    expect((await stat(other)).isFile()).toBe(true);
    await writeFile(helper(), original);
  });

  it("rebuilds when a package.json on the way changes (it can change how imports resolve)", async () => {
    const first = await scriptBundle(script(), { repoRoot: root, cacheDir });
    const manifest = path.join(root, "package.json");
    const original = await readFile(manifest, "utf8");
    await writeFile(manifest, original.replace('"fixture"', '"fixture-renamed"'));
    const second = await scriptBundle(script(), { repoRoot: root, cacheDir });
    expect(second).not.toBe(first);
    await writeFile(manifest, original);
  });

  it("rebuilds a bundle that was deleted", async () => {
    const first = await scriptBundle(script(), { repoRoot: root, cacheDir });
    await rm(first);
    expect(await scriptBundle(script(), { repoRoot: root, cacheDir })).toBe(first);
    expect((await stat(first)).isFile()).toBe(true);
  });

  it("rebuilds when the cache's manifest is damaged", async () => {
    const first = await scriptBundle(script(), { repoRoot: root, cacheDir });
    await writeFile(path.join(cacheDir, "hello.json"), "{ not json");
    expect(await scriptBundle(script(), { repoRoot: root, cacheDir })).toBe(first);
    const manifest = JSON.parse(await readFile(path.join(cacheDir, "hello.json"), "utf8"));
    expect(manifest.inputs).toContain(helper());
  });
});

describe("the repository's own scripts", () => {
  it("every root script that runs through scripts/run.js bundles (none falls back to tsx)", async () => {
    const { scripts = {} } = JSON.parse(
      await readFile(path.join(repoRoot, "package.json"), "utf8"),
    ) as { scripts?: Record<string, string> };
    const entries = Object.values(scripts)
      .map((command) => /scripts\/run\.js (scripts\/\S+\.ts)/.exec(command)?.[1])
      .filter((entry): entry is string => entry !== undefined);
    expect(entries.length).toBeGreaterThan(5);
    const cache = path.join(root, "repo-cache");
    for (const entry of entries) {
      const bundle = await scriptBundle(path.join(repoRoot, entry), { repoRoot, cacheDir: cache });
      expect(bundle, entry).toMatch(/\.mjs$/);
    }
  }, 60_000);
});
