// Shared by the runner's parent (runner.ts) and its vitest child (runner-child.js, plain
// JavaScript, which cannot import TypeScript).
import path from "node:path";

/**
 * The deepest folder that holds every path given (`/` when they share none).
 * @param {readonly string[]} paths
 * @returns {string}
 */
export function commonAncestor(paths) {
  const split = paths.map((entry) => path.resolve(entry).split(path.sep));
  const first = split[0] ?? [path.sep];
  let length = first.length;
  for (const parts of split) {
    let shared = 0;
    while (shared < length && parts[shared] === first[shared]) shared++;
    length = shared;
  }
  return first.slice(0, length).join(path.sep) || path.sep;
}
