import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { toPosixPath } from "../posix-path.ts";
import { COPIES_DIR } from "./lab-copies.ts";

/** Outcome of typechecking one package: clean, or its first error with file and line. */
export type TypecheckResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly firstError: string; readonly count: number };

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
  const config = path.join(copyRoot, "tsconfig.json");
  await writeFile(
    config,
    `${JSON.stringify(
      {
        extends: path.relative(copyRoot, path.join(starterDir, "tsconfig.json")),
        compilerOptions: { paths: { "@lab": ["./src/index.ts"] } },
        include: ["src", path.relative(copyRoot, path.join(labDir, "tests"))],
      },
      null,
      2,
    )}\n`,
  );
  return runTsc(labDir, config);
}

/** Typechecks a package (the solution) with its own tsconfig. */
export function typecheckPackage(labDir: string, packageDir: string): Promise<TypecheckResult> {
  return runTsc(labDir, path.join(packageDir, "tsconfig.json"));
}

function runTsc(labDir: string, config: string): Promise<TypecheckResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [TSC, "-p", config, "--pretty", "false", "--noEmit"],
      { cwd: labDir, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error === null) return resolve({ ok: true });
        const lines = `${stdout}\n${stderr}`.split("\n").filter((line) => line.trim() !== "");
        const errors = lines.filter((line) => DIAGNOSTIC.test(line));
        const first = errors[0] ?? lines[0] ?? error.message;
        resolve({ ok: false, firstError: describe(first), count: Math.max(errors.length, 1) });
      },
    );
  });
}

/** `file:line TSxxxx message`, with the pristine copy's path shown as the starter's own. */
function describe(line: string): string {
  const match = DIAGNOSTIC.exec(line);
  if (match === null) return line.trim();
  const [, file = "", row = "", , code = "", message = ""] = match;
  const shown = toPosixPath(file).replace(`${COPIES_DIR}/pristine/`, "");
  return `${shown}:${row} ${code} ${message}`;
}
