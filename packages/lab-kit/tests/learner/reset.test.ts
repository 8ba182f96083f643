import { access, readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LearnerContext } from "../../src/learner/learner-context.ts";
import { runLessonCommand } from "../../src/learner/lesson-command.ts";
import { toPosixPath } from "../../src/posix-path.ts";
import {
  captureStream,
  createFixtureRepo,
  type FixtureRepo,
  PARTLY_DONE_SOURCE,
  STARTER_SOURCE,
} from "./fixture-repo.ts";

const NOW = new Date("2025-03-04T05:06:07.890Z");
const BACKUP = path.join(".bootcamp", "backups", "01-2025-03-04T05-06-07-890Z");
let repo: FixtureRepo;

function context(options: { stdin?: LearnerContext["stdin"] } = {}) {
  const stdout = captureStream();
  const stderr = captureStream();
  const value: LearnerContext = {
    cwd: repo.root,
    env: { NO_COLOR: "1" },
    stdout,
    stderr,
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    runTargets: async () => {
      throw new Error("reset must not run tests");
    },
    now: () => NOW,
  };
  return { value, stdout, stderr };
}

async function read(relative: string): Promise<string> {
  return readFile(path.join(repo.root, relative), "utf8");
}

async function exists(relative: string): Promise<boolean> {
  return access(path.join(repo.root, relative)).then(
    () => true,
    () => false,
  );
}

beforeEach(async () => {
  repo = await createFixtureRepo([{ id: "01" }, { id: "02" }]);
  await repo.write("labs/01-demo-sum/starter/src/index.ts", PARTLY_DONE_SOURCE);
  await repo.write("labs/01-demo-sum/starter/src/notes/my-helper.ts", "export const mine = 1;\n");
  await repo.write("labs/02-demo-sum/starter/src/index.ts", PARTLY_DONE_SOURCE);
});

afterEach(async () => {
  await repo.remove();
});

describe("pnpm lesson reset", () => {
  it("restores the starter to exactly its committed files", async () => {
    const { value } = context();
    expect(await runLessonCommand(value, ["reset", "01", "--yes"])).toBe(0);
    expect(await read("labs/01-demo-sum/starter/src/index.ts")).toBe(STARTER_SOURCE);
    expect(await exists("labs/01-demo-sum/starter/src/notes/my-helper.ts")).toBe(false);
    expect(await exists("labs/01-demo-sum/starter/src/notes")).toBe(false);
  });

  it("backs up the learner's files, new ones included, before restoring", async () => {
    const { value } = context();
    await runLessonCommand(value, ["reset", "01", "--yes"]);
    expect(await read(path.join(BACKUP, "src", "index.ts"))).toBe(PARTLY_DONE_SOURCE);
    expect(await read(path.join(BACKUP, "src", "notes", "my-helper.ts"))).toBe(
      "export const mine = 1;\n",
    );
    expect((await readdir(path.join(repo.root, BACKUP))).sort()).toEqual(["package.json", "src"]);
  });

  it("counts and backs up only the learner's files, not lab-kit's copies beside them", async () => {
    await repo.write("labs/01-demo-sum/starter/.lab-kit/pristine/src/index.ts", STARTER_SOURCE);
    await repo.write("labs/01-demo-sum/starter/.lab-kit/runs/01/tests/lab.test.ts", "// copy\n");
    const { value, stdout } = context();
    await runLessonCommand(value, ["reset", "01", "--yes"]);
    expect(stdout.text()).toContain(`你原来的 3 个文件备份在 ${toPosixPath(BACKUP)}/`);
    expect(await exists(path.join(BACKUP, ".lab-kit"))).toBe(false);
  });

  it("prints where the backup is", async () => {
    const { value, stdout } = context();
    await runLessonCommand(value, ["reset", "01", "--yes"]);
    expect(stdout.text()).toContain(`备份在 ${toPosixPath(BACKUP)}/`);
  });

  it("restores a tracked file the learner deleted", async () => {
    await rm(path.join(repo.root, "labs/01-demo-sum/starter/package.json"));
    const { value } = context();
    await runLessonCommand(value, ["reset", "01", "--yes"]);
    expect(JSON.parse(await read("labs/01-demo-sum/starter/package.json")).name).toBe(
      "@demo/lab-01-starter",
    );
  });

  it("never touches another lab", async () => {
    const { value } = context();
    await runLessonCommand(value, ["reset", "01", "--yes"]);
    expect(await read("labs/02-demo-sum/starter/src/index.ts")).toBe(PARTLY_DONE_SOURCE);
  });

  it("refuses with exit code 2, changing nothing, when it cannot ask and --yes is absent", async () => {
    const { value, stderr } = context();
    expect(await runLessonCommand(value, ["reset", "01"])).toBe(2);
    expect(stderr.text()).toContain("pnpm lesson reset 01 --yes");
    expect(await read("labs/01-demo-sum/starter/src/index.ts")).toBe(PARTLY_DONE_SOURCE);
    expect(await exists(".bootcamp/backups")).toBe(false);
  });

  it("says there is nothing to do on a pristine starter, without a backup", async () => {
    const { value, stdout } = context();
    await runLessonCommand(value, ["reset", "01", "--yes"]);
    const again = context();
    expect(await runLessonCommand(again.value, ["reset", "01", "--yes"])).toBe(0);
    expect(again.stdout.text()).toContain("不需要重置");
    expect(await readdir(path.join(repo.root, ".bootcamp", "backups"))).toHaveLength(1);
    expect(stdout.text()).not.toContain("不需要重置");
  });
});
