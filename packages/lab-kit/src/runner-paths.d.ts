/** The deepest folder that holds every path given (`/` when they share none). */
export function commonAncestor(paths: readonly string[]): string;
/** The target whose tests folder (`testsDir`) holds `file`. */
export function targetOfFile<T extends { readonly testsDir: string }>(
  targets: readonly T[],
  file: string,
): T | undefined;
