import type { QueryDefinition } from "../../operations/query-definition.js";
import { getAuditCheckpoint } from "./query/get-audit-checkpoint.js";
import { getAuditConsistencyProof } from "./query/get-audit-consistency-proof.js";
import { getAuditInclusionProof } from "./query/get-audit-inclusion-proof.js";
import { getAuditLogKey } from "./query/get-audit-log-key.js";
import { listAuditEntries } from "./query/list-audit-entries.js";

/**
 * The audit log's queries, Strongroom's own (served under /strongroom/v1/query/, src/server/strongroom-queries.ts):
 * stamped and organization-scoped like every query. The log is one for the server (src/audit/); an organization
 * reads its own entries and proofs of their inclusion, and the checkpoints and consistency proofs, which are hashes
 * of everyone's entries and reveal none.
 */
export const auditQueries: QueryDefinition[] = [
  getAuditLogKey,
  getAuditCheckpoint,
  listAuditEntries,
  getAuditInclusionProof,
  getAuditConsistencyProof,
];
