// Runs one of the repository's TypeScript scripts (scripts/*.ts: `pnpm verify:lesson`,
// `pnpm lesson`, `pnpm test`, …) with no TypeScript loader in the process. The script and
// every workspace source it imports are bundled once by esbuild into one module under
// `node_modules/.cache/lab-kit-scripts/`; each npm package stays a plain import of the file
// it resolves to (one copy of vitest, zod… as everywhere else). The bundle is reused until
// a file it was built from, a package.json or tsconfig on their way, or the lockfile
// changes (content hash). tsx's loader instead costs every command ~0.3 s of start and
// ~0.5 CPU-s of module hooks before the script's first line.
//
// Plain JavaScript on purpose: this is what runs before any TypeScript can. When a bundle
// cannot be made (esbuild missing, a source using `import.meta` beyond dirname/filename/url,
// a computed dynamic import), the script runs through tsx as before: slower, never wrong.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { SOURCE_CONDITION } from "../../../source-condition.js";

/** Bumped when the bundle's shape changes, so an old cache entry is never reused. */
const FORMAT = 1;
const require = createRequire(import.meta.url);

/**
 * Runs `entry` (a .ts file of the repository) as `node entry …args` would: `process.argv`
 * is `[node, entry, ...args]` when it starts. Resolves when its top level has run.
 * @param {string} entry absolute path of the script
 * @param {{ repoRoot: string, args: readonly string[], cacheDir?: string }} options
 */
export async function runScript(entry, { repoRoot, args, cacheDir }) {
  process.argv = [process.argv[0] ?? process.execPath, entry, ...args];
  const bundle = await scriptBundle(entry, {
    repoRoot,
    cacheDir: cacheDir ?? path.join(repoRoot, "node_modules", ".cache", "lab-kit-scripts"),
  }).catch((error) => {
    if (process.env.LAB_KIT_SCRIPT_DEBUG) process.stderr.write(`lab-kit: ${error}\n`);
    return undefined;
  });
  if (bundle !== undefined) {
    // Stack traces name the sources' own files and lines (the bundle maps them inline).
    process.setSourceMapsEnabled(true);
    const url = pathToFileURL(bundle).href;
    try {
      await import(url);
      return;
    } catch (error) {
      // Only a bundle that vanished before it loaded (a concurrent run replaced it) is run
      // again, through tsx; any error of a script that started is its own.
      const vanished =
        error instanceof Error &&
        "code" in error &&
        error.code === "ERR_MODULE_NOT_FOUND" &&
        !existsSync(bundle);
      if (!vanished) throw error;
    }
  }
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(entry).href);
}

/**
 * The bundle of `entry`, built now unless one built from the same contents is cached.
 * Returns its path; throws when the script cannot be bundled faithfully.
 * @param {string} entry @param {{ repoRoot: string, cacheDir: string }} options
 */
export async function scriptBundle(entry, { repoRoot, cacheDir }) {
  const name = path.basename(entry).replace(/\.[cm]?[jt]s$/, "");
  const manifestFile = path.join(cacheDir, `${name}.json`);
  const cached = await readManifest(manifestFile);
  if (cached !== undefined && cached.entry === entry) {
    const hash = await hashFiles(cached.inputs);
    const file = path.join(cacheDir, cached.bundle);
    if (hash === cached.hash && existsSync(file)) return file;
  }
  const inputs = await buildInputs(entry, repoRoot, cacheDir);
  // The sources as esbuild bundled them: a file saved during the build is seen next time.
  const hash = await hashFiles(inputs.files, inputs.sources);
  const bundle = `${name}-${hash.slice(0, 16)}.mjs`;
  await mkdir(cacheDir, { recursive: true });
  // Written under a name of this process first: a concurrent run never imports half a file.
  const temporary = path.join(cacheDir, `.${bundle}.${process.pid}`);
  await writeFile(temporary, inputs.code);
  await rename(temporary, path.join(cacheDir, bundle));
  const manifest = { format: FORMAT, entry, hash, bundle, inputs: inputs.files };
  await writeFile(`${manifestFile}.${process.pid}`, JSON.stringify(manifest));
  await rename(`${manifestFile}.${process.pid}`, manifestFile);
  // The bundles it replaces, including any a concurrent build left (a run that read the
  // old manifest just now falls back to tsx).
  const older = new RegExp(`^${name.replace(/[^\w]/g, "\\$&")}-[0-9a-f]{16}\\.mjs$`);
  for (const file of await readdir(cacheDir)) {
    if (file !== bundle && older.test(file)) await rm(path.join(cacheDir, file), { force: true });
  }
  return path.join(cacheDir, bundle);
}

/** @param {string} file */
async function readManifest(file) {
  try {
    const manifest = JSON.parse(await readFile(file, "utf8"));
    const valid =
      manifest?.format === FORMAT &&
      typeof manifest.entry === "string" &&
      typeof manifest.hash === "string" &&
      typeof manifest.bundle === "string" &&
      Array.isArray(manifest.inputs) &&
      manifest.inputs.every((input) => typeof input === "string");
    return valid ? manifest : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One hash of the files' paths and contents (a missing file hashes as missing), and of
 * what else shapes the bundle: this file, Node's version and the format. `known`: contents
 * already read, by path.
 * @param {readonly string[]} files @param {ReadonlyMap<string, Buffer>} [known]
 */
async function hashFiles(files, known = new Map()) {
  const hash = createHash("sha256");
  hash.update(`${FORMAT}\0${process.version}\0`);
  const contents = await Promise.all(
    [import.meta.filename, ...files].map(
      (file) => known.get(file) ?? readFile(file).catch(() => undefined),
    ),
  );
  for (const [index, file] of [import.meta.filename, ...files].entries()) {
    const content = contents[index];
    hash.update(`${file}\0${content === undefined ? "-" : content.length}\0`);
    if (content !== undefined) hash.update(content);
  }
  return hash.digest("hex");
}

/** A file's `import.meta` uses this bundle can state as literals: what the file would see. */
const META = /\bimport\.meta\.(dirname|filename|url)\b/g;

/**
 * Bundles `entry` and lists the files the bundle depends on: every bundled source, each
 * package.json and tsconfig.json from their folders up to the repository root, the
 * lockfile.
 * @param {string} entry @param {string} repoRoot @param {string} cacheDir
 */
async function buildInputs(entry, repoRoot, cacheDir) {
  const esbuild = await import(pathToFileURL(require.resolve("esbuild")).href);
  /** @type {Map<string, Buffer>} each bundled source as it was read */
  const sources = new Map();
  /** @type {import("esbuild").Plugin} */
  const plugin = {
    name: "lab-kit:script",
    setup(build) {
      // An npm package stays external, imported by the file it resolves to here (a cache
      // folder has no node_modules of its own to find it from); workspace sources are bundled.
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.labKitResolved === true || args.kind === "entry-point") {
          return undefined;
        }
        if (args.path.startsWith("node:")) return { path: args.path, external: true };
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: { labKitResolved: true },
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        if (resolved.external) return { path: resolved.path, external: true };
        if (resolved.path.split(path.sep).includes("node_modules")) {
          return { path: pathToFileURL(resolved.path).href, external: true };
        }
        return { path: resolved.path };
      });
      // What the module would see of its own location, written in as literals; anything
      // the bundle cannot keep faithful stops the bundle (the caller falls back to tsx).
      build.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
        if (args.path.split(path.sep).includes("node_modules")) return undefined;
        const raw = await readFile(args.path);
        sources.set(args.path, raw);
        const source = raw.toString("utf8");
        const code = source.replace(META, (_match, /** @type {string} */ field) =>
          JSON.stringify(
            field === "dirname"
              ? path.dirname(args.path)
              : field === "filename"
                ? args.path
                : pathToFileURL(args.path).href,
          ),
        );
        if (/\bimport\.meta\b/.test(code)) {
          throw new Error(`${args.path}: import.meta 的用法无法打包`);
        }
        if (/\bimport\s*\(\s*(?!["'][^"'`$]*["']\s*\))/.test(code)) {
          throw new Error(`${args.path}: 动态 import 的路径不是字面量，无法打包`);
        }
        const loader = /\.[cm]?ts$/.test(args.path) ? "ts" : "js";
        return { contents: code, loader, resolveDir: path.dirname(args.path) };
      });
    },
  };
  const result = await esbuild.build({
    entryPoints: [entry],
    absWorkingDir: repoRoot,
    bundle: true,
    write: false,
    // Where the bundle will be: its source map names each source relative to it.
    outdir: cacheDir,
    format: "esm",
    platform: "node",
    target: `node${process.versions.node}`,
    conditions: [SOURCE_CONDITION],
    metafile: true,
    sourcemap: "inline",
    logLevel: "silent",
    plugins: [plugin],
  });
  const bundled = Object.keys(result.metafile.inputs).map((input) => path.resolve(repoRoot, input));
  const config = new Set(
    ["pnpm-lock.yaml", "tsconfig.base.json"].map((file) => path.join(repoRoot, file)),
  );
  for (const source of bundled) {
    for (let dir = path.dirname(source); ; dir = path.dirname(dir)) {
      config.add(path.join(dir, "package.json"));
      config.add(path.join(dir, "tsconfig.json"));
      if (dir === repoRoot || dir === path.dirname(dir)) break;
    }
  }
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error("esbuild wrote no bundle");
  return { code: output.contents, files: [...bundled, ...config].sort(), sources };
}
