export { locateOnce } from "./locate.ts";
