// `node scripts/run.js scripts/<name>.ts [args…]`: how every root script starts one of
// this folder's TypeScript scripts, bundled and cached (`@bootcamp/lab-kit/script-runner`).
import path from "node:path";
import { runScript } from "@bootcamp/lab-kit/script-runner";

const repoRoot = path.resolve(import.meta.dirname, "..");
const [script, ...args] = process.argv.slice(2);
if (script === undefined) {
  process.stderr.write("用法：node scripts/run.js scripts/<脚本>.ts [参数…]\n");
  process.exit(2);
}
await runScript(path.resolve(repoRoot, script), { repoRoot, args });
