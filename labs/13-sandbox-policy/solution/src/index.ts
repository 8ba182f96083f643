export { buildChildEnv, createPolicy, looksSecret } from "./child-env.ts";
