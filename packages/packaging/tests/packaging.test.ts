/**
 * The capstone as a user gets it: every published `@coding-agent/*` package is packed with
 * `pnpm pack` (turbo built its dist/ first) and installed with npm into an empty project
 * outside the workspace, where the CLI, a plain Node ESM file and a TypeScript consumer must
 * work. Then every dist/ in the workspace is removed and the workspace's own ways of running
 * the packages (the CLI bin, checkpoint smokes and tests, lab tests through lab-kit) must
 * still pass: they run the sources, so a stale build can never be what they see.
 */
import { spawn } from "node:child_process";
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { runLabTargets } from "@bootcamp/lab-kit";
import { defaultServerConditions } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOURCE_CONDITION, SOURCE_SSR_CONDITIONS } from "../../../source-condition.js";

const repoRoot = path.resolve(import.meta.dirname, "../../..");
const packageDir = path.resolve(import.meta.dirname, "..");
const require = createRequire(import.meta.url);

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end; never rejects, so a failure is reported with its output. */
function run(command: string, args: readonly string[], cwd: string): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", (error) => resolve({ code: null, stdout, stderr: String(error) }));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function describeRun(what: string, ran: Ran): string {
  return `${what} exited ${ran.code}\n--- stdout\n${ran.stdout}\n--- stderr\n${ran.stderr}`;
}

interface WorkspacePackage {
  readonly name: string;
  readonly dir: string;
  readonly private: boolean;
}

async function workspacePackages(parent: string): Promise<WorkspacePackage[]> {
  const found: WorkspacePackage[] = [];
  for (const entry of await readdir(path.join(repoRoot, parent), { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = path.join(repoRoot, parent, entry.name);
    try {
      const manifest = JSON.parse(await readFile(path.join(dir, "package.json"), "utf8")) as {
        name: string;
        private?: boolean;
      };
      found.push({ name: manifest.name, dir, private: manifest.private === true });
    } catch {
      // A folder without package.json is not a package.
    }
  }
  return found;
}

/** The fenced block of `language` that follows `heading` in a Markdown file. */
function fencedBlockAfter(markdown: string, heading: string, language: string): string {
  const start = markdown.indexOf(heading);
  if (start === -1) throw new Error(`heading ${heading} not found`);
  const match = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(markdown.slice(start));
  if (match?.[1] === undefined) throw new Error(`no \`\`\`${language} block after ${heading}`);
  return match[1];
}

const published = (await workspacePackages("packages")).filter(
  (pkg) => pkg.name.startsWith("@coding-agent/") && !pkg.private,
);

/** Sections of a README whose first `js` block must run as written, offline, printing the `text` block after it. */
const EXAMPLE_SECTIONS = ["## Example", "## Extensions"];

/** Each JavaScript example of a published package's README, by section. */
const withJsExample: { readonly name: string; readonly dir: string; readonly section: string }[] =
  [];
for (const pkg of published) {
  const readme = await readFile(path.join(pkg.dir, "README.md"), "utf8");
  for (const section of EXAMPLE_SECTIONS) {
    const at = readme.indexOf(`${section}\n`);
    if (at !== -1 && /^```js$/m.test(readme.slice(at).split(/\n## /)[0] ?? "")) {
      withJsExample.push({ name: pkg.name, dir: pkg.dir, section });
    }
  }
}

interface Installed {
  /** The consumer project: a temp folder outside the workspace. */
  readonly consumer: string;
  /** Files of each tarball, as `pnpm pack` listed them. */
  readonly packed: ReadonlyMap<string, readonly string[]>;
}

/** Packs each published package into a new consumer project and npm-installs the tarballs. */
async function packAndInstall(): Promise<Installed> {
  const consumer = await mkdtemp(path.join(os.tmpdir(), "coding-agent-consumer-"));
  try {
    const packed = new Map<string, readonly string[]>();
    const tarballs: Record<string, string> = {};
    for (const pkg of published) {
      const ran = await run("pnpm", ["pack", "--json", "--pack-destination", consumer], pkg.dir);
      if (ran.code !== 0) throw new Error(describeRun(`pnpm pack in ${pkg.dir}`, ran));
      const report = JSON.parse(ran.stdout) as { filename: string; files: { path: string }[] };
      tarballs[pkg.name] = `file:./${path.basename(report.filename)}`;
      packed.set(
        pkg.name,
        report.files.map((file) => file.path),
      );
    }
    const typesNode = require("@types/node/package.json") as { version: string };
    await writeFile(
      path.join(consumer, "package.json"),
      JSON.stringify({
        name: "consumer",
        private: true,
        type: "module",
        dependencies: tarballs,
        // Every dependent of a package here (the CLI of eval, eval of tools) takes its
        // tarball too: without this npm asked the registry for `@coding-agent/tools@0.1.0`
        // while placing eval's dependencies, and retried there until the hook timed out.
        overrides: tarballs,
        devDependencies: { "@types/node": typesNode.version },
      }),
    );
    const install = await run(
      "npm",
      ["install", "--no-audit", "--no-fund", "--prefer-offline"],
      consumer,
    );
    if (install.code !== 0) throw new Error(describeRun("npm install", install));
    return { consumer, packed };
  } catch (error) {
    await rm(consumer, { recursive: true, force: true });
    throw error;
  }
}

let installing: Promise<Installed> | undefined;
/** One pack and install for the whole file; the dist/ removal below waits for it. */
function installed(): Promise<Installed> {
  installing ??= packAndInstall();
  return installing;
}

afterAll(async () => {
  const done = await installing?.catch(() => undefined);
  if (done !== undefined) await rm(done.consumer, { recursive: true, force: true });
});

// Each check waits mostly on child processes: they run side by side.
describe.concurrent("the published packages, installed with npm outside the workspace", () => {
  let consumer = "";
  let packed: ReadonlyMap<string, readonly string[]> = new Map();

  beforeAll(async () => {
    ({ consumer, packed } = await installed());
  });

  it("packs every published package the packaging test depends on", async () => {
    const manifest = JSON.parse(await readFile(path.join(packageDir, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    const declared = Object.keys(manifest.devDependencies).filter((name) =>
      name.startsWith("@coding-agent/"),
    );
    // Turbo builds only the packages this one depends on (`^build`): a new package must be
    // added to packages/packaging's devDependencies, or it would be packed without dist/.
    expect(declared.sort(), "packages/packaging devDependencies vs packages/*").toEqual(
      published.map((pkg) => pkg.name).sort(),
    );
  });

  it("ships dist/ (JS, .d.ts, maps), src/, README and LICENSE; no tests, configs or workspace bin", () => {
    for (const [name, files] of packed) {
      expect(files, name).toEqual(expect.arrayContaining(["package.json", "README.md", "LICENSE"]));
      expect(files, name).toEqual(
        expect.arrayContaining([
          "dist/index.js",
          "dist/index.js.map",
          "dist/index.d.ts",
          "dist/index.d.ts.map",
          "src/index.ts",
        ]),
      );
      const unwanted = files.filter(
        (file) =>
          !/^(dist|src)\//.test(file) &&
          !["package.json", "README.md", "LICENSE", "bin/coding-agent.js"].includes(file),
      );
      expect(unwanted, `${name} ships files outside dist/, src/ and its metadata`).toEqual([]);
    }
  });

  it("installs no tsx and no esbuild", async () => {
    const ran = await run("npm", ["ls", "--all", "--parseable"], consumer);
    const installed = ran.stdout
      .split("\n")
      .filter((line) => line.includes("node_modules"))
      .map((line) => line.slice(line.lastIndexOf("node_modules") + "node_modules/".length));
    expect(installed, describeRun("npm ls", ran)).toContain("@coding-agent/agent-core");
    expect(installed.filter((name) => /^(tsx|esbuild|@esbuild\/.*)$/.test(name))).toEqual([]);
  });

  it('runs `npx coding-agent run "你好" --json` to completion', async () => {
    const ran = await run(
      "npx",
      ["--no-install", "coding-agent", "run", "你好", "--json"],
      consumer,
    );
    expect(ran.code, describeRun("coding-agent run", ran)).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ status: "completed", summary: "已完成：你好" });
  });

  it("prints the same help without loading the runtime (--help) as through the parser (run --help)", async () => {
    const fast = await run("npx", ["--no-install", "coding-agent", "--help"], consumer);
    const parsed = await run("npx", ["--no-install", "coding-agent", "run", "--help"], consumer);
    expect(fast.code, describeRun("coding-agent --help", fast)).toBe(0);
    expect(parsed.code, describeRun("coding-agent run --help", parsed)).toBe(0);
    expect(fast.stdout).toContain("用法：coding-agent run");
    expect(fast.stdout).toBe(parsed.stdout);
  });

  it("runs the CLI README's budget example: budget_exceeded, exit 3", async () => {
    const readme = await readFile(path.join(repoRoot, "packages/cli/README.md"), "utf8");
    const example = fencedBlockAfter(readme, "## Example", "sh");
    expect(example).toContain('npx coding-agent run "你好" --json');
    expect(example).toContain('npx coding-agent run "你好" --max-steps 1');
    const ran = await run(
      "npx",
      ["--no-install", "coding-agent", "run", "你好", "--max-steps", "1"],
      consumer,
    );
    expect(ran.code, describeRun("coding-agent run --max-steps 1", ran)).toBe(3);
  });

  it.each(withJsExample)(
    "runs the example under $section of $name's README with plain Node and prints what it shows",
    async ({ dir, section }) => {
      const readme = await readFile(path.join(dir, "README.md"), "utf8");
      const example = fencedBlockAfter(readme, `${section}\n`, "js");
      const slug = section.replace(/\W+/g, "-").toLowerCase();
      const file = `example-${path.basename(dir)}${slug}.mjs`;
      await writeFile(path.join(consumer, file), example);
      const ran = await run(process.execPath, [file], consumer);
      expect(ran.code, describeRun(`node ${file}`, ran)).toBe(0);
      const afterExample = readme.indexOf(example) + example.length;
      expect(ran.stdout).toBe(fencedBlockAfter(readme.slice(afterExample), "```", "text"));
    },
  );

  it("type-checks a TypeScript consumer against the published declarations", async () => {
    await copyFile(
      path.join(import.meta.dirname, "consumer.ts"),
      path.join(consumer, "consumer.ts"),
    );
    await writeFile(
      path.join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "nodenext",
          strict: true,
          noEmit: true,
          types: ["node"],
          skipLibCheck: false,
        },
        files: ["consumer.ts"],
      }),
    );
    const tsc = path.join(path.dirname(require.resolve("typescript/package.json")), "bin", "tsc");
    const ran = await run(process.execPath, [tsc, "-p", consumer, "--listFiles"], consumer);
    expect(ran.code, describeRun("tsc", ran)).toBe(0);
    // The types came from the installed build, not from the workspace's sources.
    const agentCoreFiles = ran.stdout
      .split("\n")
      .filter((file) => file.includes("@coding-agent/agent-core/"));
    expect(agentCoreFiles).toContain(
      path.join(consumer, "node_modules/@coding-agent/agent-core/dist/index.d.ts"),
    );
    expect(agentCoreFiles.filter((file) => !file.endsWith(".d.ts"))).toEqual([]);
  });
});

describe.concurrent("the workspace, with every dist/ removed", () => {
  beforeAll(async () => {
    await installed();
    // After packing, the builds are not needed here: without them, anything in the workspace
    // that resolved a package to dist/ instead of src/ fails below (turbo restores dist/ from
    // its cache the next time a build is asked for).
    for (const pkg of published)
      await rm(path.join(pkg.dir, "dist"), { recursive: true, force: true });
  });

  it("keeps vite's default server conditions after the source condition", () => {
    expect(SOURCE_SSR_CONDITIONS).toEqual([SOURCE_CONDITION, ...defaultServerConditions]);
  });

  it("runs `pnpm exec coding-agent` from the sources", async () => {
    // The repository root has a test script (the whole `pnpm test`): a greeting needs no finish gate.
    const ran = await run(
      "pnpm",
      ["exec", "coding-agent", "run", "你好", "--finish-gate", "none", "--json"],
      repoRoot,
    );
    expect(ran.code, describeRun("pnpm exec coding-agent", ran)).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ status: "completed" });
  });

  it("runs every checkpoint's smoke (Node, type stripping) from the sources", async () => {
    // checkpoints/shared is the weeks' common code, not a checkpoint: it has no smoke.
    const weeks = (await workspacePackages("checkpoints")).filter((checkpoint) =>
      path.basename(checkpoint.dir).startsWith("week-"),
    );
    expect(weeks).toHaveLength(8);
    for (const checkpoint of weeks) {
      const ran = await run("pnpm", ["run", "smoke"], checkpoint.dir);
      expect(ran.code, describeRun(`${checkpoint.name} smoke`, ran)).toBe(0);
    }
  });

  it("runs a lab's tests from the sources through defineLabConfig", async () => {
    const starter = path.join(import.meta.dirname, "fixtures/source-lab/starter");
    const vitest = path.join(path.dirname(require.resolve("vitest/package.json")), "vitest.mjs");
    const ran = await run(process.execPath, [vitest, "run"], starter);
    expect(ran.code, describeRun("vitest run (lab config)", ran)).toBe(0);
    expect(ran.stdout).toContain("1 passed");
  });

  it("runs a lab's tests from the sources through the lab runner of verify:lesson", async () => {
    const labDir = path.join(import.meta.dirname, "fixtures/source-lab");
    const [report] = await runLabTargets([
      { label: "source-lab", labDir, packageDir: path.join(labDir, "starter") },
    ]);
    expect(report?.loadErrors).toEqual([]);
    expect(report?.tests.map((test) => [test.name, test.state, test.failure?.message])).toEqual([
      ["runs the runtime imported by package name", "passed", undefined],
    ]);
  });
});
