/**
 * Records what real test runners print, for `tests/runner-reports.test.ts`: each runner is
 * installed from the npm registry into a throwaway project holding the same small suite
 * (a pass, a nested failure, a skip, a name with " > " inside), run with the command
 * `run_tests` plans for it (`withMachineReporter`), and its stdout, stderr and exit code
 * are written to `tests/fixtures/runner-reports/<id>/`. Run it again after changing a
 * planned command or adding a runner:
 *
 *   pnpm --filter @coding-agent/tools record:runner-reports [id…]
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { withMachineReporter } from "../src/test-runs/plan-test-command.ts";

/** One recording: a runner at a major version, its suite and the user's test command. */
interface Recording {
  readonly id: string;
  /** What npm installs (`runner@major`), and the package whose version is recorded. */
  readonly install: readonly string[];
  readonly runner: string;
  readonly files: Readonly<Record<string, string>>;
  /** The command as a user writes it; `run_tests` adds its reporter. */
  readonly command: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly scripts?: Readonly<Record<string, string>>;
}

const JEST_LIKE_SUITE = (header: string) => `${header}
describe("math", () => {
  describe("add", () => {
    it("adds two numbers", () => {
      assert.strictEqual(1 + 1, 2);
    });
    it("carries the sign", () => {
      assert.strictEqual(-1 + -1, -3);
    });
  });
  it.skip("waits for a fix", () => {});
  it("compares a > b", () => {
    assert.ok(1 > 2, "one is not greater than two");
  });
});
it("stands alone", () => {});
`;

const CJS_ASSERT = `const assert = require("node:assert");`;

const MOCHA_SUITE = JEST_LIKE_SUITE(CJS_ASSERT);

const TAPE_SUITE = `const test = require("tape");
test("math", (t) => {
  t.test("add", (st) => {
    st.equal(1 + 1, 2, "adds two numbers");
    st.equal(-1 + -1, -3, "carries the sign");
    st.end();
  });
  t.ok(1 > 2, "compares a > b");
  t.skip("waits for a fix");
  t.end();
});
test("stands alone", (t) => {
  t.pass("passes");
  t.end();
});
`;

const NODE_TAP_SUITE = `const t = require("tap");
t.test("math", async (t) => {
  t.test("add", async (t) => {
    t.equal(1 + 1, 2, "adds two numbers");
    t.equal(-1 + -1, -3, "carries the sign");
  });
  t.ok(1 > 2, "compares a > b");
  t.test("waits for a fix", { skip: true }, async () => {});
});
t.test("stands alone", async (t) => {
  t.pass("passes");
});
`;

const AVA_SUITE = `const test = require("ava");
test("adds two numbers", (t) => {
  t.is(1 + 1, 2);
});
test("carries the sign", (t) => {
  t.is(-1 + -1, -3);
});
test.skip("waits for a fix", (t) => {
  t.pass();
});
test("compares a > b", (t) => {
  t.true(1 > 2, "one is not greater than two");
});
`;

const NODE_TEST_SUITE = `const assert = require("node:assert");
const { describe, it } = require("node:test");
${JEST_LIKE_SUITE("").trim()}
`;

const vitest = (major: number): Recording => ({
  id: `vitest-${major}`,
  install: [`vitest@${major}`],
  runner: "vitest",
  files: {
    "math.test.mjs": JEST_LIKE_SUITE(
      `import assert from "node:assert";\nimport { describe, it } from "vitest";`,
    ),
  },
  command: "vitest run",
});

const jest = (major: number): Recording => ({
  id: `jest-${major}`,
  install: [`jest@${major}`],
  runner: "jest",
  files: { "math.test.js": JEST_LIKE_SUITE(CJS_ASSERT) },
  command: "jest",
});

const RECORDINGS: readonly Recording[] = [
  ...[1, 2, 3, 4].map(vitest),
  ...[27, 28, 29, 30].map(jest),
  ...[10, 11].map(
    (major): Recording => ({
      id: `mocha-${major}`,
      install: [`mocha@${major}`],
      runner: "mocha",
      files: { "test/math.spec.js": MOCHA_SUITE },
      command: "mocha",
    }),
  ),
  {
    id: "mocha-11-spec-color",
    install: ["mocha@11"],
    runner: "mocha",
    files: { "test/math.spec.js": MOCHA_SUITE },
    command: "mocha --reporter spec --color",
  },
  {
    id: "mocha-11-tap",
    install: ["mocha@11"],
    runner: "mocha",
    files: { "test/math.spec.js": MOCHA_SUITE },
    command: "mocha --reporter tap",
  },
  {
    id: "tape-5",
    install: ["tape@5"],
    runner: "tape",
    files: { "test/math.js": TAPE_SUITE },
    command: "tape test/*.js",
  },
  {
    id: "tap-21",
    install: ["tap@21"],
    runner: "tap",
    files: { "test/math.js": NODE_TAP_SUITE },
    command: "tap --disable-coverage",
  },
  {
    id: "ava-6",
    install: ["ava@6"],
    runner: "ava",
    files: { "test/math.js": AVA_SUITE },
    command: "ava",
  },
  {
    id: "mocha-11-npm-test",
    install: ["mocha@11"],
    runner: "mocha",
    files: { "test/math.spec.js": MOCHA_SUITE },
    scripts: { test: "mocha" },
    command: "npm test",
  },
  {
    id: "jest-29-npm-test",
    install: ["jest@29"],
    runner: "jest",
    files: { "math.test.js": JEST_LIKE_SUITE(CJS_ASSERT) },
    scripts: { test: "jest" },
    command: "npm test",
  },
  {
    id: "vitest-4-npm-run",
    install: ["vitest@4"],
    runner: "vitest",
    files: {
      "math.test.mjs": JEST_LIKE_SUITE(
        `import assert from "node:assert";\nimport { describe, it } from "vitest";`,
      ),
    },
    scripts: { unit: "vitest run" },
    command: "npm run unit",
  },
  {
    id: "node-test",
    install: [],
    runner: "node",
    files: { "test/math.test.js": NODE_TEST_SUITE },
    command: "node --test",
  },
];

const outDir = path.join(import.meta.dirname, "..", "tests", "fixtures", "runner-reports");
const only = process.argv.slice(2);

for (const recording of RECORDINGS) {
  if (only.length > 0 && !only.includes(recording.id)) continue;
  const project = mkdtempSync(path.join(tmpdir(), `runner-${recording.id}-`));
  try {
    for (const [file, text] of Object.entries(recording.files)) {
      mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
      writeFileSync(path.join(project, file), text);
    }
    writeFileSync(
      path.join(project, "package.json"),
      JSON.stringify({ name: "fixture", private: true, scripts: recording.scripts ?? {} }),
    );
    if (recording.install.length > 0) {
      const installed = spawnSync(
        "npm",
        ["install", "--no-audit", "--no-fund", "--loglevel=error", ...recording.install],
        { cwd: project, encoding: "utf8" },
      );
      if (installed.status !== 0) throw new Error(`npm install failed: ${installed.stderr}`);
    }
    const planned = withMachineReporter(recording.command, recording.scripts);
    const ran = spawnSync("sh", ["-c", planned.command], {
      cwd: project,
      encoding: "utf8",
      env: {
        ...process.env,
        PATH: `${path.join(project, "node_modules", ".bin")}${path.delimiter}${process.env.PATH ?? ""}`,
        NO_COLOR: "1",
        CI: "1",
        ...recording.env,
      },
      timeout: 120_000,
    });
    const version =
      recording.install.length === 0
        ? process.version
        : (
            JSON.parse(
              readFileSync(
                path.join(project, "node_modules", recording.runner, "package.json"),
                "utf8",
              ),
            ) as { version: string }
          ).version;
    const target = path.join(outDir, recording.id);
    mkdirSync(target, { recursive: true });
    // The project's temporary folder appears in stack traces: replaced by a stable name.
    const stable = (text: string) => text.replaceAll(project, "/project");
    writeFileSync(path.join(target, "stdout.txt"), stable(ran.stdout));
    writeFileSync(path.join(target, "stderr.txt"), stable(ran.stderr));
    writeFileSync(
      path.join(target, "run.json"),
      `${JSON.stringify(
        {
          runner: recording.runner,
          version,
          node: process.version,
          command: planned.command,
          exitCode: ran.status,
        },
        null,
        2,
      )}\n`,
    );
    console.log(`${recording.id}: ${recording.runner} ${version}, exit ${ran.status}`);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}
