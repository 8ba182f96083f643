import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The entry of `@modelcontextprotocol/server-everything`, the registry's reference MCP server. */
export const EVERYTHING = join(
  dirname(
    createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json"),
  ),
  "dist",
  "index.js",
);
