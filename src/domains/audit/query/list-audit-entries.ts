import { Type } from "@sinclair/typebox";
import { readEntries } from "../../../audit/read.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { Id } from "../../../schema/common.js";
import { AuditEntry, TreeSize } from "../schemas.js";

const MAX_LIMIT = 1000;

/**
 * POST /strongroom/v1/query/list_audit_entries: the organization's own entries of the audit log, by index, from
 * `startIndex` on. Asked with `Accept: application/x-ndjson`, the answer is the entries themselves, one a line.
 * An organization reads only its own entries (its parent may read them too, as it reads its other records);
 * entries of other organizations and the server's own are never answered.
 */
export const listAuditEntries = defineQuery({
  operation: "list_audit_entries",
  sdkMethod: "listAuditEntries",
  summary: "The organization's entries of the audit log, in log order (NDJSON with Accept: application/x-ndjson)",
  strongroomOnly: true,
  body: Type.Object({
    organizationId: Id(),
    startIndex: Type.Optional(TreeSize("The first log index to answer from (default 0)")),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description: `At most this many entries (default 100, at most ${MAX_LIMIT})` }),
    ),
  }),
  result: Type.Object({
    entries: Type.Array(AuditEntry),
    nextIndex: Type.Optional(Type.Integer({ description: "Where the next page starts, when there may be more" })),
  }),
  asNdjson: (result) => (result.entries as Array<{ entry: string }>).map((e) => `${e.entry}\n`).join(""),
  async execute({ organization, services }, body) {
    const limit = body.limit ?? 100;
    const entries = await readEntries(services.db, organization.id, body.startIndex ?? 0, limit);
    return { entries, ...(entries.length === limit ? { nextIndex: entries[entries.length - 1]!.index + 1 } : {}) };
  },
});
