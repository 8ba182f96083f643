import path from "node:path";
import { describe, expect, it } from "vitest";
import { toPosixPath } from "../src/posix-path.ts";

describe("toPosixPath", () => {
  it("turns a Windows path into the / form git and the messages use", () => {
    expect(toPosixPath("labs\\05-minimal-agent-loop\\starter\\src\\index.ts", "\\")).toBe(
      "labs/05-minimal-agent-loop/starter/src/index.ts",
    );
  });

  it("leaves a path that already uses / as it is", () => {
    expect(toPosixPath(["labs", "05", "tests"].join(path.posix.sep), path.posix.sep)).toBe(
      "labs/05/tests",
    );
  });

  it("uses the platform's own separator by default", () => {
    expect(toPosixPath(path.join("starter", "src", "a.ts"))).toBe("starter/src/a.ts");
  });
});
