import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { toPosixPath } from "../posix-path.ts";
import { COPIES_DIR } from "./lab-copies.ts";

/** Outcome of typechecking one package: clean, or its first error with file and line. */
export type TypecheckResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly firstError: string; readonly count: number };

/**
 * TypeScript 7's `bin/tsc`: a Node script that finds the native compiler and replaces itself
 * with it (`process.execve`, in every Node this repository supports).
 */
const TSC = path.join(
  path.dirname(createRequire(import.meta.url).resolve("typescript/package.json")),
  "bin",
  "tsc",
);
const DIAGNOSTIC = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/;

/**
 * Typechecks the pristine starter copy with the native `tsc`: vitest strips types without
 * checking them, so a starter that only fails to typecheck would otherwise pass unnoticed.
 * A generated tsconfig extends the starter's own and points `@lab` at the copy.
 */
export async function typecheckPristineStarter(
  labDir: string,
  pristineSrcDir: string,
): Promise<TypecheckResult> {
  const copyRoot = path.dirname(pristineSrcDir);
  const starterDir = path.join(labDir, "starter");
  const config = await writeTsconfig(copyRoot, {
    extends: path.relative(copyRoot, path.join(starterDir, "tsconfig.json")),
    compilerOptions: { paths: { "@lab": ["./src/index.ts"] } },
    include: ["src", path.relative(copyRoot, path.join(labDir, "tests"))],
  });
  return runTsc(labDir, config);
}

/**
 * Typechecks the solution (its sources and the lab's tests) and every mutant's sources in
 * one `tsc` process: one parse of the libraries for all of them. A generated tsconfig
 * extends the solution's own; each mutant's diagnostics are told apart by path. The tests
 * are typechecked against the solution, whose API a mutation of a function body keeps.
 */
export async function typecheckSolutionAndMutants(
  labDir: string,
  mutants: ReadonlyMap<string, string>,
): Promise<{ solution: TypecheckResult; mutants: Map<string, TypecheckResult> }> {
  const solutionDir = path.join(labDir, "solution");
  const root = path.join(solutionDir, COPIES_DIR);
  const relative = (target: string) => toPosixPath(path.relative(root, target));
  const config = await writeTsconfig(root, {
    extends: relative(path.join(solutionDir, "tsconfig.json")),
    // Stated here: an inherited `${configDir}` would mean this generated folder.
    compilerOptions: { paths: { "@lab": [relative(path.join(solutionDir, "src", "index.ts"))] } },
    include: [
      relative(path.join(solutionDir, "src")),
      relative(path.join(labDir, "tests")),
      ...[...mutants.values()].map(relative),
    ],
  });
  const outcome = await tscLines(labDir, config);
  const results = new Map<string, TypecheckResult>();
  if (outcome.ok) {
    for (const name of mutants.keys()) results.set(name, { ok: true });
    return { solution: { ok: true }, mutants: results };
  }
  const fileOf = (line: string) => path.resolve(labDir, DIAGNOSTIC.exec(line)?.[1] ?? "");
  const claimed = new Set<string>();
  for (const [name, srcDir] of mutants) {
    const own = outcome.errors.filter((line) => fileOf(line).startsWith(srcDir + path.sep));
    for (const line of own) claimed.add(line);
    const first = own[0];
    results.set(
      name,
      first === undefined
        ? { ok: true }
        : { ok: false, firstError: describe(first), count: own.length },
    );
  }
  const rest = outcome.errors.filter((line) => !claimed.has(line));
  const first = rest[0] ?? (outcome.errors.length === 0 ? outcome.lines[0] : undefined);
  const solution: TypecheckResult =
    first === undefined
      ? { ok: true }
      : { ok: false, firstError: describe(first), count: Math.max(rest.length, 1) };
  return { solution, mutants: results };
}

/** Writes a generated `tsconfig.json` into `dir`; returns its path. */
async function writeTsconfig(dir: string, config: object): Promise<string> {
  const file = path.join(dir, "tsconfig.json");
  await mkdir(dir, { recursive: true });
  await writeFile(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}

type TscOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly errors: readonly string[]; readonly lines: readonly string[] };

function tscLines(labDir: string, config: string): Promise<TscOutcome> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [TSC, "-p", config, "--pretty", "false", "--noEmit"],
      { cwd: labDir, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error === null) return resolve({ ok: true });
        const lines = `${stdout}\n${stderr}`.split("\n").filter((line) => line.trim() !== "");
        const errors = lines.filter((line) => DIAGNOSTIC.test(line));
        resolve({ ok: false, errors, lines: lines.length > 0 ? lines : [error.message] });
      },
    );
  });
}

async function runTsc(labDir: string, config: string): Promise<TypecheckResult> {
  const outcome = await tscLines(labDir, config);
  if (outcome.ok) return { ok: true };
  const first = outcome.errors[0] ?? outcome.lines[0] ?? "tsc 失败";
  return { ok: false, firstError: describe(first), count: Math.max(outcome.errors.length, 1) };
}

/** `file:line TSxxxx message`, with the pristine copy's path shown as the starter's own. */
function describe(line: string): string {
  const match = DIAGNOSTIC.exec(line);
  if (match === null) return line.trim();
  const [, file = "", row = "", , code = "", message = ""] = match;
  const shown = toPosixPath(file)
    .replace(`${COPIES_DIR}/pristine/`, "")
    .replace(new RegExp(`${COPIES_DIR}/mutants/[^/]+/`), "");
  return `${shown}:${row} ${code} ${message}`;
}
