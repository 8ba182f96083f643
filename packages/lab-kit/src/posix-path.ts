import path from "node:path";

/**
 * A path with `/` separators, as git, globs, manifests and the messages a learner reads write
 * it, whatever the platform's own separator is.
 */
export function toPosixPath(file: string, separator: string = path.sep): string {
  return file.split(separator).join("/");
}
