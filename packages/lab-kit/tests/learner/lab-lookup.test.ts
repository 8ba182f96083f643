import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lookUpLab } from "../../src/learner/lab-lookup.ts";
import type { LearnerContext } from "../../src/learner/learner-context.ts";
import { runLessonCommand } from "../../src/learner/lesson-command.ts";
import { runLessonsCommand } from "../../src/learner/lessons-command.ts";
import { captureStream, createFixtureRepo, type FixtureRepo } from "./fixture-repo.ts";

// No lab here can run: one was never installed, one is not a lab. Nothing starts vitest.
let repo: FixtureRepo;

beforeAll(async () => {
  repo = await createFixtureRepo([
    { id: "01", installed: false },
    { id: "02", manifestPatch: { week: undefined } },
    { id: "03", slug: "other-name", manifestPatch: { slug: "demo-sum" } },
  ]);
});

afterAll(async () => {
  await repo.remove();
});

function context() {
  const stdout = captureStream();
  const stderr = captureStream();
  const value: LearnerContext = {
    cwd: repo.root,
    env: { NO_COLOR: "1" },
    stdout,
    stderr,
    runTargets: async () => {
      throw new Error("no lab here can run");
    },
  };
  return { value, stdout, stderr };
}

describe("lookUpLab", () => {
  it("accepts 1, 01 and 01-demo-sum for the same lesson", async () => {
    for (const input of ["1", "01", "01-demo-sum"]) {
      const found = await lookUpLab(repo.root, input, { requireInstall: false });
      expect(found.ok && found.lab.id).toBe("01");
    }
  });

  it("names the manifest file and the field at fault for a folder that is not a lab", async () => {
    const found = await lookUpLab(repo.root, "02", { requireInstall: false });
    expect(found.ok).toBe(false);
    expect(!found.ok && found.message).toContain("labs/02-demo-sum/lesson.json");
    expect(!found.ok && found.message).toMatch(/^ {2}- week: /m);
  });

  it("rejects a manifest whose slug does not match its folder", async () => {
    const found = await lookUpLab(repo.root, "03", { requireInstall: false });
    expect(!found.ok && found.message).toContain('slug: 是 "demo-sum"，但文件夹名是 "other-name"');
  });

  it("asks for pnpm install when tests must run but the starter has no node_modules", async () => {
    const found = await lookUpLab(repo.root, "01", { requireInstall: true });
    expect(!found.ok && found.message).toContain("请在仓库根目录运行 pnpm install");
  });
});

describe("exit codes for unusable labs", () => {
  it("lesson hint exits 2 when the starter is not installed", async () => {
    const { value, stderr } = context();
    expect(await runLessonCommand(value, ["hint", "01"])).toBe(2);
    expect(stderr.text()).toContain("labs/01-demo-sum/starter/node_modules");
  });

  it("lesson diff works without node_modules", async () => {
    const { value } = context();
    expect(await runLessonCommand(value, ["diff", "01", "--yes"])).toBe(0);
  });

  it("lessons lists every lab, names what is wrong and exits 2", async () => {
    const { value, stdout } = context();
    expect(await runLessonsCommand(value, [])).toBe(2);
    expect(stdout.text()).toContain("01  求和练习 01  依赖未安装（运行 pnpm install）");
    expect(stdout.text()).toContain(
      "02  labs/02-demo-sum  不是完整的实验（labs/02-demo-sum/lesson.json）",
    );
  });

  it("lesson with an unknown command exits 2 and lists the valid ones", async () => {
    const { value, stderr } = context();
    expect(await runLessonCommand(value, ["hnit", "01"])).toBe(2);
    expect(stderr.text()).toContain("可用的命令：hint、reset、diff、watch");
  });
});
