/**
 * What a lab's tests may import, checked in vite's resolver (so dynamic and computed imports
 * count too): `vitest`, `@lab` (the learner's piece), the runtime packages by name
 * (`@coding-agent/<package>` and its entries such as `/testing`), `node:` built-ins and files
 * inside the lab's `tests/`. Never `../solution` or `../starter`.
 */
import { isBuiltin } from "node:module";
import path from "node:path";
import type { Plugin } from "vite";
import { LAB_ALIAS } from "./settings.ts";

const RUNTIME_PACKAGE = /^@coding-agent\/[\w-]+(\/[\w-]+)?$/;

export function isAllowedLabImport(specifier: string, importer: string, testsDir: string): boolean {
  if (specifier === "vitest" || specifier === LAB_ALIAS || RUNTIME_PACKAGE.test(specifier)) {
    return true;
  }
  if (specifier.startsWith("node:")) return isBuiltin(specifier);
  return (
    specifier.startsWith(".") &&
    path.resolve(path.dirname(importer), specifier).startsWith(testsDir + path.sep)
  );
}

/**
 * Resolves `@lab` for the lab's test files to `srcDir/index.ts` and calls `onForbidden` for
 * every other import such a file makes that lab tests may not make.
 */
export function labImportsPlugin(options: {
  readonly testsDir: string;
  readonly srcDir: string;
  readonly onForbidden: (importer: string, specifier: string) => void;
}): Plugin {
  return {
    name: "lab-kit:lab-imports",
    enforce: "pre",
    resolveId(source, importer) {
      const from = importer?.split("?")[0];
      if (from === undefined || !from.startsWith(options.testsDir + path.sep)) return null;
      if (source === LAB_ALIAS) return path.join(options.srcDir, "index.ts");
      // A virtual module of vite itself (e.g. its dynamic-import helper), never a lab file.
      if (source.startsWith("\0")) return null;
      if (!isAllowedLabImport(source, from, options.testsDir)) options.onForbidden(from, source);
      return null;
    },
  };
}
