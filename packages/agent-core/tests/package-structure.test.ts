/**
 * The package's shape, as its readers rely on it: agent-core does no I/O (the CLI injects
 * it), its modules import one another without a circle (a base layer exists), the loop file
 * holds the loop, and the textbook carries no mutation-tool comments.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.join(import.meta.dirname, "..", "src");

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

const files = sourceFiles();
const name = (file: string) => path.relative(SRC, file).split(path.sep).join("/");
const text = new Map(files.map((file) => [file, readFileSync(file, "utf8")]));

/**
 * The specifiers of a module's imports and re-exports: `… from "x"` (type-only ones
 * included), a bare `import "x"`, and a dynamic `import("x")`.
 */
function specifiers(source: string): string[] {
  const patterns = [
    /^\s*(?:import|export)\s[^;]*?\sfrom\s+"([^"]+)"/gms,
    /^\s*import\s+"([^"]+)"/gm,
    /\bimport\(\s*"([^"]+)"\s*\)/g,
  ];
  return patterns.flatMap((pattern) =>
    [...source.matchAll(pattern)].map((match) => match[1] ?? ""),
  );
}

/** Modules that touch the outside world: files, processes, the network, the terminal. */
const IO_MODULES =
  /^(node:)?(fs|fs\/promises|child_process|net|http|https|http2|dgram|tls|readline|worker_threads|cluster|os)$/;

describe("agent-core's structure", () => {
  it("finds the modules it checks", () => {
    expect(files.map(name)).toEqual(expect.arrayContaining(["agent-loop.ts", "index.ts"]));
  });

  it("imports no module that does I/O", () => {
    const offenders = files.flatMap((file) =>
      specifiers(text.get(file) ?? "")
        .filter((specifier) => IO_MODULES.test(specifier))
        .map((specifier) => `${name(file)} → ${specifier}`),
    );
    expect(offenders).toEqual([]);
  });

  it("has no import circle between its modules", () => {
    const edges = new Map(
      files.map((file) => [
        file,
        specifiers(text.get(file) ?? "")
          .filter((specifier) => specifier.startsWith("."))
          .map((specifier) => path.resolve(path.dirname(file), specifier)),
      ]),
    );
    const circles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "open") {
        circles.push([...trail.slice(trail.indexOf(file)), file].map(name).join(" → "));
        return;
      }
      state.set(file, "open");
      for (const next of edges.get(file) ?? []) visit(next, [...trail, file]);
      state.set(file, "done");
    };
    for (const file of files) visit(file, []);
    expect(circles).toEqual([]);
  });

  it("keeps the loop file at most 450 lines and every other module at most 350", () => {
    const long = files.flatMap((file) => {
      const lines = (text.get(file) ?? "").split("\n").length - 1;
      const limit = name(file) === "agent-loop.ts" ? 450 : 350;
      return lines > limit ? [`${name(file)}: ${lines} > ${limit}`] : [];
    });
    expect(long).toEqual([]);
  });

  it("carries no mutation-testing directive in the source", () => {
    const marked = files.filter((file) => /Stryker (disable|restore)/.test(text.get(file) ?? ""));
    expect(marked.map(name)).toEqual([]);
  });
});
