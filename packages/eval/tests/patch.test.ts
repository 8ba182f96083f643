import { describe, expect, it } from "vitest";
import { diffSnapshots } from "../src/patch.ts";

const snapshot = (files: Record<string, string>) => new Map(Object.entries(files));

describe("diffSnapshots", () => {
  it("names every added, modified and removed file, sorted by path, and leaves equal ones out", () => {
    const before = snapshot({ "src/a.ts": "1", "src/b.ts": "2", "test/a.test.ts": "3" });
    const after = snapshot({ "src/a.ts": "1", "src/b.ts": "2b", "src/c.ts": "4" });
    expect(diffSnapshots(before, after)).toEqual([
      { path: "src/b.ts", change: "modified" },
      { path: "src/c.ts", change: "added" },
      { path: "test/a.test.ts", change: "removed" },
    ]);
  });

  it("is empty for equal snapshots, and a file turned into a link is modified", () => {
    const files = snapshot({ "a.txt": "1" });
    expect(diffSnapshots(files, snapshot({ "a.txt": "1" }))).toEqual([]);
    expect(diffSnapshots(files, snapshot({ "a.txt": "symlink:/etc/passwd" }))).toEqual([
      { path: "a.txt", change: "modified" },
    ]);
  });
});
