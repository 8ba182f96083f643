/**
 * The system Chromium for the report's browser test (Debian's `chromium`, which CI
 * installs). playwright-core drives it; no browser is ever downloaded. A machine without
 * it fails the test with what to install, never a silent skip.
 */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

const NAMES = ["chromium", "chromium-browser"];

/** The Chromium on PATH, or an error that says how to get it. */
export function findChromium(
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const dirs = (env.PATH ?? "").split(delimiter).filter((dir) => dir !== "");
  for (const dir of dirs) {
    for (const name of NAMES) {
      const file = join(dir, name);
      try {
        accessSync(file, constants.X_OK);
        return file;
      } catch {
        // Not here; look further.
      }
    }
  }
  throw new Error(
    `Chromium not found (looked for ${NAMES.join(", ")} on PATH). The HTML report's browser test needs it: ` +
      "install it with `apt-get install -y chromium fonts-noto-cjk` (.ci/run does this in CI).",
  );
}
