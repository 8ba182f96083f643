export { type Page, paginate } from "./paginate.ts";
