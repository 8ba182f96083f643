import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { commandBlocks, runReadmeCommands } from "../src/verify/readme-commands.ts";

const fence = (info: string, lines: readonly string[]) => [`\`\`\`${info}`, ...lines, "```"];

describe("commandBlocks", () => {
  it("pairs each cli block with the bash block right before it", () => {
    const readme = [
      ...fence("bash", ["echo 1"]),
      "说明文字",
      "<!-- output: cli -->",
      ...fence("text", ["1"]),
      "<!-- output: cli -->",
      ...fence("text", ["2"]),
    ].join("\n");
    expect(commandBlocks(readme)).toEqual([
      { line: 6, script: "echo 1" },
      { line: 10, script: undefined },
    ]);
  });
});

describe("runReadmeCommands", () => {
  const made: string[] = [];
  afterEach(async () => {
    for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  /** A repository with one lab whose working starter differs from its committed copy. */
  async function repo(): Promise<{ root: string; labDir: string; pristine: string }> {
    const root = await mkdtemp(path.join(os.tmpdir(), "readme-commands-"));
    made.push(root);
    const labDir = path.join(root, "labs", "01-demo");
    for (const dir of ["starter/src", "starter/.lab-kit/pristine/src", "checkpoints", "packages"]) {
      await mkdir(path.join(dir.startsWith("starter") ? labDir : root, dir), { recursive: true });
    }
    await writeFile(path.join(labDir, "starter/src/says.txt"), "学员改过的\n");
    await writeFile(path.join(labDir, "starter/.lab-kit/pristine/src/says.txt"), "提交的版本\n");
    return { root, labDir, pristine: path.join(labDir, "starter/.lab-kit/pristine/src") };
  }

  const readme = (script: readonly string[]) =>
    [...fence("bash", script), "<!-- output: cli -->", ...fence("text", [])].join("\n");

  it("runs from a scratch root where the lab's starter is the committed one, stderr in order", async () => {
    const { root, labDir, pristine } = await repo();
    const runs = await runReadmeCommands({
      repoRoot: root,
      labDir,
      pristineSrcDir: pristine,
      readme: readme([
        "cat labs/01-demo/starter/src/says.txt",
        "echo 到 stderr >&2",
        "echo made > made.txt; pwd",
        'false; echo "exit=$?"',
      ]),
    });
    expect(runs.get(8)).toEqual({
      ok: true,
      lines: ["提交的版本", "到 stderr", ".", "exit=1"],
    });
    // What the commands wrote stayed in the scratch folder, which is gone.
    expect(await readdir(root)).toEqual(["checkpoints", "labs", "packages"]);
    expect(await readFile(path.join(labDir, "starter/src/says.txt"), "utf8")).toBe("学员改过的\n");
  });

  it("gives the commands a temporary $CODING_AGENT_HOME of their own, removed afterwards", async () => {
    const { root, labDir, pristine } = await repo();
    const runs = await runReadmeCommands({
      repoRoot: root,
      labDir,
      pristineSrcDir: pristine,
      readme: readme([
        // Unset, the variable stops the block instead of making /runs.
        "set -u",
        'mkdir -p "$CODING_AGENT_HOME/runs/r1"',
        'echo "$CODING_AGENT_HOME"',
        "ls -A",
      ]),
    });
    const run = runs.get(8);
    if (run === undefined || !run.ok)
      throw new Error(`the block did not run: ${JSON.stringify(run)}`);
    const [home, ...listed] = run.lines;
    expect(home).toMatch(/lab-kit-readme-home-/);
    expect(home).not.toBe(process.env.CODING_AGENT_HOME);
    // Not in the commands' own folder, and gone with it.
    expect(listed).toEqual(["checkpoints", "labs", "packages"]);
    expect(existsSync(home ?? "")).toBe(false);
  });

  it("runs the blocks as one terminal: a block starts where the last ended, with its exports", async () => {
    const { root, labDir, pristine } = await repo();
    const readmeText = [
      ...fence("bash", ['export GREETING="你好"', 'cd "$(mktemp -d)"', "pwd"]),
      "<!-- output: cli -->",
      ...fence("text", []),
      ...fence("bash", ['echo "$GREETING"', "pwd", "touch here.txt", "ls"]),
      "<!-- output: cli -->",
      ...fence("text", []),
    ].join("\n");
    const runs = await runReadmeCommands({
      repoRoot: root,
      labDir,
      pristineSrcDir: pristine,
      readme: readmeText,
    });
    expect(runs.get(7)).toEqual({ ok: true, lines: ["/tmp/tmp.XXXXXXXXXX"] });
    expect(runs.get(16)).toEqual({
      ok: true,
      lines: ["你好", "/tmp/tmp.XXXXXXXXXX", "here.txt"],
    });
    // The folder mktemp made was not the repository's.
    expect(await readdir(root)).toEqual(["checkpoints", "labs", "packages"]);
  });

  it("reports a cli block with no bash block before it", async () => {
    const { root, labDir, pristine } = await repo();
    const runs = await runReadmeCommands({
      repoRoot: root,
      labDir,
      pristineSrcDir: pristine,
      readme: ["<!-- output: cli -->", ...fence("text", ["x"])].join("\n"),
    });
    expect(runs.get(2)).toMatchObject({ ok: false });
  });
});
