// Path helpers shared by the runner's parent (runner.ts), its vitest child
// (runner-child.js) and the files vitest loads in the workers (runner-lab.js,
// runner-setup.js); plain JavaScript, which all of them can import.
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

/**
 * The target whose tests folder (`testsDir`) holds `file`: each target of a runner project
 * runs its own folder's test files.
 * @template {{ readonly testsDir: string }} T
 * @param {readonly T[]} targets @param {string} file
 * @returns {T | undefined}
 */
export function targetOfFile(targets, file) {
  return targets.find((target) => file.startsWith(target.testsDir + path.sep));
}
