export { decideInDoubt } from "./in-doubt.ts";
