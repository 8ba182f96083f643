// After `tsc` has built dist/: writes dist/usage.txt, the text `coding-agent --help` prints
// without loading the runtime (see src/main.ts). Made from `usage()` itself, so the two
// cannot differ.
import { writeFileSync } from "node:fs";
import { usage } from "../dist/args.js";

writeFileSync(new URL("../dist/usage.txt", import.meta.url), `${usage()}\n`);
