/** The deepest folder that holds every path given (`/` when they share none). */
export function commonAncestor(paths: readonly string[]): string;
