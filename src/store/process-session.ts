import { randomUUID } from "node:crypto";

/**
 * This process's name on every database session it opens (PostgreSQL's `application_name`, on PGlite too), unique
 * per process. Work a process leases in the database (an activity's claim, migration 0031) records this name, and
 * another process finds the holder gone when no session of `pg_stat_activity` carries it any more: a process that
 * dies loses its connections, so its leases can be taken at once instead of after a timeout.
 */
export const PROCESS_SESSION_NAME = `strongroom ${randomUUID()}`;
