import { existsSync, realpathSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readWorkspaceFile } from "../src/fs-read.ts";
import { createWorkspace, type Workspace } from "../src/workspace.ts";
import { createTempLayout, SECRET, type TempLayout } from "./support/temp-workspace.ts";

let layout: TempLayout;
let workspace: Workspace;

beforeAll(async () => {
  layout = await createTempLayout();
  workspace = createWorkspace(layout.workspace);
});
afterAll(() => layout.remove());

const SYMLINKS = [
  "link-out",
  "dir-out",
  "dangling-out",
  "link-in",
  "dir-in",
  "link-sibling",
  "chain-1",
  "loop-a",
];
const ORDINARY = ["src", "deep", "notes.txt", "a.ts", "b.ts", "ws", "outside", "secret.txt", "x"];
const segment = fc.constantFrom("..", ".", ...SYMLINKS, ...ORDINARY);
const relativePath = fc
  .tuple(fc.array(segment, { minLength: 1, maxLength: 8 }), fc.constantFrom("/", "\\"))
  .map(([parts, separator]) => parts.join(separator));

/** Independent oracle: the real place a path names, or the real place of its deepest existing part. */
function realPlace(absolute: string): string {
  let current = absolute;
  while (!existsSync(current)) current = dirname(current);
  return realpathSync(current);
}

const inside = (root: string, candidate: string) =>
  candidate === root || candidate.startsWith(`${root}${sep}`);

/** A timeout only so that a hang fails: hundreds of real filesystem walks take seconds on a loaded machine. */
const HANG_GUARD_MS = 120_000;

describe("workspace.resolve (property)", { timeout: HANG_GUARD_MS }, () => {
  it("never accepts a path built from .., ., symlinks and names that really leads outside", async () => {
    await fc.assert(
      fc.asyncProperty(relativePath, async (requested) => {
        const resolved = await workspace.resolve(requested);
        if (!resolved.ok) {
          expect(resolved.error.code).toBe("path_outside_workspace");
          return;
        }
        const lexical = join(workspace.root, requested.replaceAll("\\", "/"));
        expect(inside(workspace.root, realPlace(lexical)), requested).toBe(true);
        expect(inside(workspace.root, resolved.absolute), requested).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it("never returns the secret kept outside, whatever the path", async () => {
    await fc.assert(
      fc.asyncProperty(relativePath, async (requested) => {
        const result = await readWorkspaceFile(workspace, { path: requested });
        expect(JSON.stringify(result), requested).not.toContain(SECRET);
      }),
      { numRuns: 300 },
    );
  });

  it("accepts every path made only of ordinary names and `.`", async () => {
    const plain = fc
      .array(fc.constantFrom(".", ...ORDINARY), { minLength: 1, maxLength: 6 })
      .map((parts) => parts.join("/"));
    await fc.assert(
      fc.asyncProperty(plain, async (requested) => {
        expect((await workspace.resolve(requested)).ok, requested).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
