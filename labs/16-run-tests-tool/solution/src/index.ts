export { readNodeTap } from "./tap.ts";
