/**
 * The loop-protect technique (as JS Bin, CodePen and freeCodeCamp use it for learners' code):
 * a vite transform that puts a call to the loop guard (`loop-guard.ts`) at the start of every
 * loop body of the code under test, so a synchronous endless loop fails inside its own test
 * instead of blocking the worker where no timer can reach it.
 */
import path from "node:path";
import MagicString from "magic-string";
import { type Plugin, parseAst } from "vite";
import { LOOP_GUARD_GLOBAL } from "./settings.ts";

const LOOPS = new Set([
  "ForStatement",
  "ForInStatement",
  "ForOfStatement",
  "WhileStatement",
  "DoWhileStatement",
]);
const TICK = "__labKitLoop$";
const SOURCE = /\.[cm]?[jt]sx?$/;

interface Node {
  readonly type: string;
  readonly start: number;
  readonly end: number;
  readonly body?: Node;
}

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && typeof (value as Node).type === "string";
}

/** Calls `visit` on every node of the tree, parents before children. */
function walk(value: unknown, visit: (node: Node) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit);
    return;
  }
  if (!isNode(value)) return;
  visit(value);
  for (const [key, child] of Object.entries(value)) {
    if (key !== "type" && typeof child === "object") walk(child, visit);
  }
}

/**
 * The source with a guard call at the start of each loop body (a body without braces gets
 * them), and its source map; `undefined` when the file has no loop.
 */
export function insertLoopGuards(
  code: string,
  file: string,
): { code: string; map: ReturnType<MagicString["generateMap"]> } | undefined {
  if (!/\b(for|while|do)\b/.test(code)) return undefined;
  const lang = /\.[cm]?tsx$/.test(file)
    ? "tsx"
    : /\.[cm]?ts$/.test(file)
      ? "ts"
      : /x$/.test(file)
        ? "jsx"
        : "js";
  let ast: unknown;
  try {
    ast = parseAst(code, { lang, sourceType: "module" }, file);
  } catch {
    // A syntax error: vite's own transform reports it as it always does.
    return undefined;
  }
  const edited = new MagicString(code);
  let loops = 0;
  walk(ast, (node) => {
    if (!LOOPS.has(node.type) || node.body === undefined) return;
    loops++;
    const body = node.body;
    if (body.type === "BlockStatement") {
      edited.appendLeft(body.start + 1, `${TICK}();`);
    } else {
      edited.appendLeft(body.start, `{${TICK}();`);
      edited.appendLeft(body.end, "}");
    }
  });
  if (loops === 0) return undefined;
  // One line, so every line of the file keeps its number even without the map.
  edited.prepend(`const ${TICK} = globalThis.${LOOP_GUARD_GLOBAL} ?? (() => {});`);
  return { code: edited.toString(), map: edited.generateMap({ hires: true, source: file }) };
}

/**
 * The vite plugin: guards the loops of every source file under `dirs` (the code under
 * test and the lab's tests), before any other transform sees the file.
 */
export function loopGuardPlugin(dirs: readonly string[]): Plugin {
  const roots = dirs.map((dir) => path.resolve(dir) + path.sep);
  return {
    name: "lab-kit:loop-guard",
    enforce: "pre",
    transform(code, id) {
      const file = id.split("?")[0] ?? id;
      if (!SOURCE.test(file) || file.endsWith(".d.ts") || file.includes("/node_modules/")) {
        return null;
      }
      if (!roots.some((root) => file.startsWith(root))) return null;
      return insertLoopGuards(code, file) ?? null;
    },
  };
}
