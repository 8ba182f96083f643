import { copyFile, mkdir, readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { listLabs } from "../src/labs.ts";
import { loadManifest } from "../src/manifest.ts";
import { runNewLessonCli } from "../src/scaffold/scaffold-lesson.ts";
import type { LabVerdict } from "../src/verify/check-line.ts";
import { verifyLessons } from "../src/verify/verify-lessons.ts";
import { copyFixture } from "./fixture-repo.ts";

let repo: string;
let out = "";
let code: number;
let verdict: LabVerdict | undefined;

beforeAll(async () => {
  const { root, dir } = await copyFixture("verify-repo");
  repo = dir;
  // A new lab's tsconfig extends lab-kit's shared one, where a real repository keeps it.
  await mkdir(path.join(repo, "packages", "lab-kit"), { recursive: true });
  await copyFile(
    path.join(import.meta.dirname, "..", "tsconfig.lab.json"),
    path.join(repo, "packages", "lab-kit", "tsconfig.lab.json"),
  );
  code = await runNewLessonCli(repo, ["12", "tool-registry", "工具", "注册表"], {
    out: (text) => (out += text),
    err: () => undefined,
  });
  const lab = (await listLabs(repo)).filter((entry) => entry.id === "12");
  [verdict] = await verifyLessons(repo, lab, { seed: 1 });
  return () => rm(root, { recursive: true, force: true });
}, 60_000);

describe("new:lesson", () => {
  it("writes labs/NN-slug and tells the user to run pnpm install", () => {
    expect(code).toBe(0);
    expect(out).toContain("labs/12-tool-registry");
    expect(out).toContain("pnpm install");
  });

  it("gives starter and solution only a package.json, a one-line tsconfig and src/", async () => {
    const lab = path.join(repo, "labs", "12-tool-registry");
    const written = [];
    for (const side of ["starter", "solution"]) {
      const entries = await readdir(path.join(lab, side), { recursive: true, withFileTypes: true });
      for (const entry of entries.filter((item) => item.isFile())) {
        written.push(path.relative(lab, path.join(entry.parentPath, entry.name)));
      }
    }
    // verify:lesson (run above) leaves its ignored work folders .lab-kit/ and node_modules/
    const source = written.filter((file) => !/(^|\/)(\.lab-kit|node_modules)\//.test(file));
    expect(source.sort()).toEqual([
      "solution/package.json",
      "solution/src/index.ts",
      "solution/tsconfig.json",
      "starter/package.json",
      "starter/src/index.ts",
      "starter/tsconfig.json",
    ]);
    const tsconfig = await readFile(path.join(lab, "starter", "tsconfig.json"), "utf8");
    expect(tsconfig.trim().split("\n")).toHaveLength(1);
  });

  it("pins no version: every dependency is catalog: or workspace:", async () => {
    const manifest = JSON.parse(
      await readFile(
        path.join(repo, "labs", "12-tool-registry", "starter", "package.json"),
        "utf8",
      ),
    ) as { scripts: Record<string, string>; devDependencies: Record<string, string> };
    expect(manifest.scripts.test).toBe("lab-test");
    for (const [name, version] of Object.entries(manifest.devDependencies)) {
      expect(version, name).toMatch(/^(catalog:|workspace:\*)$/);
    }
  });

  it("writes a manifest that validates, with the week derived from the number", async () => {
    const manifest = await loadManifest(path.join(repo, "labs", "12-tool-registry"));
    expect(manifest.ok && manifest.manifest).toMatchObject({
      id: "12",
      title: "工具 注册表",
      week: 3,
    });
  });

  it("writes the README outline of the design", async () => {
    const text = await readFile(path.join(repo, "labs", "12-tool-registry", "README.md"), "utf8");
    expect(text).toContain("## 代码实验");
    expect(text).toContain("## 验收 Rubric");
  });

  it("scaffolds a lab whose every check holds except the capstone tests still to write", () => {
    const failing = verdict?.checks.filter((check) => !check.ok).map((check) => check.text) ?? [];
    expect(failing).toEqual([
      expect.stringContaining("packages/agent-core/tests/lesson-12.test.ts"),
    ]);
    expect(verdict?.checks.length).toBeGreaterThanOrEqual(9);
  });

  it("refuses to overwrite an existing lab with exit code 2", async () => {
    let err = "";
    const again = await runNewLessonCli(repo, ["12", "other", "另一个"], {
      out: () => undefined,
      err: (text) => (err += text),
    });
    expect(again).toBe(2);
    expect(err).toContain("labs/12-tool-registry");
  });

  it("rejects a slug that is not kebab-case with exit code 2", async () => {
    const bad = await runNewLessonCli(repo, ["13", "Tool_Registry", "工具"], {
      out: () => undefined,
      err: () => undefined,
    });
    expect(bad).toBe(2);
  });
});
