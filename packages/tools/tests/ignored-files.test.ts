import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createIgnoredFilter } from "../src/ignored-files.ts";

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "coding-agent-ignored-")));
}, 60_000);
afterEach(() => rm(dir, { recursive: true, force: true }), 60_000);

function git(...args: string[]) {
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
    cwd: dir,
    stdio: "ignore",
  });
}

describe("createIgnoredFilter", () => {
  it("drops what the repository's .gitignore ignores, at any depth, and keeps a tracked file a pattern matches", async () => {
    await writeFile(join(dir, ".gitignore"), "*.log\nbuild/\n");
    await mkdir(join(dir, "pkg"));
    await writeFile(join(dir, "pkg", ".gitignore"), "generated.py\n");
    await writeFile(join(dir, "kept.log"), "tracked before the pattern\n");
    git("init", "-q");
    // The machine's global excludes must not decide the test.
    git("config", "core.excludesFile", "/dev/null");
    git("add", "-f", "kept.log");
    git("commit", "-qm", "init");
    const keep = await createIgnoredFilter(dir)([
      "src/app.py",
      "debug.log",
      "build/out.txt",
      "pkg/generated.py",
      "pkg/real.py",
      "kept.log",
      "__pycache__/app.cpython-311.pyc",
    ]);
    // `__pycache__` is the user's business in a repository that does not ignore it.
    expect(keep).toEqual([
      "src/app.py",
      "pkg/real.py",
      "kept.log",
      "__pycache__/app.cpython-311.pyc",
    ]);
  });

  it("judges a file that was removed by the patterns, as git does", async () => {
    await writeFile(join(dir, ".gitignore"), "dist/\n");
    git("init", "-q");
    expect(await createIgnoredFilter(dir)(["dist/gone.js", "src/gone.js"])).toEqual([
      "src/gone.js",
    ]);
  });

  it("outside a git repository drops the usual build output and bytecode, and keeps the rest", async () => {
    const keep = await createIgnoredFilter(dir)([
      "calc.py",
      "__pycache__/calc.cpython-311.pyc",
      "tests/__pycache__/test_calc.cpython-311-pytest-7.2.1.pyc",
      ".pytest_cache/v/cache/lastfailed",
      "target/debug/calc",
      "old.pyc",
      "src/lib.rs",
      "src/target.rs",
    ]);
    expect(keep).toEqual(["calc.py", "src/lib.rs", "src/target.rs"]);
  });
});
