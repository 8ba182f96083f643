// Loaded with `node --import` into a real CLI process: the process kills itself (SIGKILL,
// nothing runs after it) just before the rename that would put the file named
// CRASH_BEFORE_RENAME in place. A crash at an exact point of a write, with no timing.
import { createRequire, syncBuiltinESMExports } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const fsPromises: typeof import("node:fs/promises") = require("node:fs/promises");
const target = process.env.CRASH_BEFORE_RENAME;
const rename = fsPromises.rename;
fsPromises.rename = async (from, to) => {
  if (target !== undefined && path.basename(String(to)) === target) {
    process.kill(process.pid, "SIGKILL");
  }
  return rename(from, to);
};
// Named imports of node:fs/promises (`import { rename } …`) now see the replacement too.
syncBuiltinESMExports();
