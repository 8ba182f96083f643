export { CallTimeoutError, withTimeout, withToolTimeout } from "./timeout.ts";
