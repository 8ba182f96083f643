import { existsSync } from "node:fs";
import path from "node:path";
import { type LabLocation, listLabs, normalizeLessonId } from "../labs.ts";
import { type LessonManifest, loadManifest } from "../manifest.ts";
import { toPosixPath } from "../posix-path.ts";

/** A lab folder that holds a valid manifest, a starter, a solution and its tests. */
export interface ResolvedLab {
  readonly id: string;
  readonly slug: string;
  /** `labs/NN-slug`, relative to the repository root, with `/` separators. */
  readonly name: string;
  readonly dir: string;
  readonly starterDir: string;
  readonly solutionDir: string;
  readonly testsDir: string;
  readonly manifest: LessonManifest;
}

/** What one lab folder turned out to be. */
export type LabInspection =
  | { readonly kind: "ready"; readonly lab: ResolvedLab }
  /** A dependency folder is missing: `pnpm install` has not run since the lab appeared. */
  | { readonly kind: "not_installed"; readonly lab: ResolvedLab; readonly missing: string }
  /** Not (yet) a lab: the file at fault and what is wrong with it, field by field. */
  | {
      readonly kind: "not_a_lab";
      readonly location: LabLocation;
      readonly name: string;
      readonly file: string;
      readonly problems: readonly string[];
    };

function relativeName(repoRoot: string, file: string): string {
  return toPosixPath(path.relative(repoRoot, file));
}

/** Checks that a lab folder is a complete lab, and that its starter has been installed. */
export async function inspectLab(repoRoot: string, location: LabLocation): Promise<LabInspection> {
  const name = relativeName(repoRoot, location.dir);
  const notALab = (file: string, problems: readonly string[]): LabInspection => ({
    kind: "not_a_lab",
    location,
    name,
    file: relativeName(repoRoot, file),
    problems,
  });
  const loaded = await loadManifest(location.dir);
  if (!loaded.ok) return notALab(loaded.file, loaded.problems);
  const manifest = loaded.manifest;
  const manifestFile = path.join(location.dir, "lesson.json");
  if (manifest.id !== location.id) {
    return notALab(manifestFile, [`id: 是 "${manifest.id}"，但文件夹编号是 "${location.id}"`]);
  }
  if (manifest.slug !== location.slug) {
    return notALab(manifestFile, [`slug: 是 "${manifest.slug}"，但文件夹名是 "${location.slug}"`]);
  }
  const lab: ResolvedLab = {
    id: location.id,
    slug: location.slug,
    name,
    dir: location.dir,
    starterDir: path.join(location.dir, "starter"),
    solutionDir: path.join(location.dir, "solution"),
    testsDir: path.join(location.dir, "tests"),
    manifest,
  };
  // Files inside starter/ are the learner's to break (reset brings them back); only the
  // folder itself is required of a lab.
  const required = [
    lab.starterDir,
    path.join(lab.solutionDir, "package.json"),
    path.join(lab.solutionDir, "src", "index.ts"),
    lab.testsDir,
  ];
  const missing = required.filter((file) => !existsSync(file));
  if (missing.length > 0) {
    const problems = missing.map((file) => `${relativeName(repoRoot, file)}: 缺失`);
    return notALab(missing[0] ?? lab.dir, problems);
  }
  const modules = path.join(lab.starterDir, "node_modules");
  if (!existsSync(modules)) {
    return { kind: "not_installed", lab, missing: relativeName(repoRoot, modules) };
  }
  return { kind: "ready", lab };
}

/**
 * Finds the lab a learner named (`5`, `05` or `05-minimal-agent-loop`) and checks it is
 * usable; `requireInstall` also demands the starter's dependencies (needed to run tests).
 * Every failure carries a Chinese message that says what is valid.
 */
export async function lookUpLab(
  repoRoot: string,
  input: string,
  options: { readonly requireInstall: boolean },
): Promise<
  | { readonly ok: true; readonly lab: ResolvedLab }
  | { readonly ok: false; readonly message: string }
> {
  const labs = await listLabs(repoRoot);
  const id = normalizeLessonId(input);
  const location = labs.find((lab) => lab.id === id);
  if (id === undefined || location === undefined) {
    const available =
      labs.length === 0
        ? "（labs/ 下还没有任何课程）"
        : labs.map((lab) => `${lab.id} ${lab.slug}`).join("、");
    return { ok: false, message: `没有编号为「${input}」的课程。可用的课程：${available}。` };
  }
  const inspection = await inspectLab(repoRoot, location);
  if (inspection.kind === "not_a_lab") {
    const message = [
      `${inspection.name} 还不是一个完整的实验：${inspection.file} 有问题：`,
      ...inspection.problems.map((problem) => `  - ${problem}`),
      "一个实验需要 lesson.json、tests/、starter/ 和 solution/（含 package.json 与 src/index.ts）。",
    ].join("\n");
    return { ok: false, message };
  }
  if (inspection.kind === "not_installed" && options.requireInstall) {
    const message = `${inspection.lab.name} 的依赖还没有安装（缺少 ${inspection.missing}）。请在仓库根目录运行 pnpm install。`;
    return { ok: false, message };
  }
  return { ok: true, lab: inspection.lab };
}
