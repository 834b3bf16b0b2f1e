import { invalidArgument } from "../errors.js";

export interface PaginationInput {
  limit?: string;
  before?: string;
  after?: string;
}

/** The API's pagination: `limit` 1–100 (default 10); `before`/`after` are object ids used as cursors. */
export function pageLimit(options: PaginationInput | undefined): number {
  if (options?.limit === undefined) return 10;
  const limit = Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw invalidArgument(`paginationOptions.limit: ${JSON.stringify(options.limit)} must be between 1 and 100`, [
      { field: "paginationOptions.limit", description: "must be between 1 and 100" },
    ]);
  }
  return limit;
}
