/** One page of a list. */
export interface Page<T> {
  readonly items: readonly T[];
  /** This page's number, counted from 1. */
  readonly page: number;
  readonly totalPages: number;
  readonly hasNext: boolean;
}

/** Page `page` (counted from 1) of `items`, `perPage` items a page. */
export function paginate<T>(items: readonly T[], page: number, perPage: number): Page<T> {
  if (!Number.isInteger(perPage) || perPage < 1) {
    throw new RangeError(`perPage must be a positive integer, got ${perPage}`);
  }
  const totalPages = Math.floor(items.length / perPage);
  if (!Number.isInteger(page) || page < 1 || page > Math.max(totalPages, 1)) {
    throw new RangeError(`there is no page ${page} of ${totalPages}`);
  }
  const start = (page - 1) * perPage;
  return {
    items: items.slice(start, start + perPage),
    page,
    totalPages,
    hasNext: page < totalPages,
  };
}
