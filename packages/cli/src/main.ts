/**
 * Process entry of `coding-agent`. `coding-agent --help` (or `help`, `-h`) prints the usage
 * the build wrote beside this file (`usage.txt`, made from `usage()` by
 * `scripts/write-usage.mjs`), loading nothing else: someone asking for help waits for Node
 * alone, not for zod and the runtime. From the sources, or without the file, help goes the
 * ordinary way; everything else is `process-main.ts`.
 */
import { readFileSync } from "node:fs";

const argv = process.argv.slice(2);
const asksHelp = argv.length === 1 && ["help", "--help", "-h"].includes(argv[0] ?? "");
const prebuilt = asksHelp ? prebuiltUsage() : undefined;
if (prebuilt !== undefined) process.stdout.write(prebuilt);
else await import("./process-main.ts");

function prebuiltUsage(): string | undefined {
  try {
    return readFileSync(new URL("./usage.txt", import.meta.url), "utf8");
  } catch {
    return undefined;
  }
}
