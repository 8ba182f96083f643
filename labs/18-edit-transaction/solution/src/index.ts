export { rollBack } from "./rollback.ts";
