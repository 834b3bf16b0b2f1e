import { Type } from "@sinclair/typebox";
import { checkpointRoot, findCheckpoint } from "../../../audit/read.js";
import { notFound } from "../../../errors.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { Id } from "../../../schema/common.js";
import { AuditCheckpoint, TreeSize } from "../schemas.js";

/**
 * POST /strongroom/v1/query/get_audit_checkpoint: the latest checkpoint of the audit log (or the one of
 * `treeSize`), a C2SP signed note. The log is one for the whole server; its checkpoint names no organization.
 */
export const getAuditCheckpoint = defineQuery({
  operation: "get_audit_checkpoint",
  sdkMethod: "getAuditCheckpoint",
  summary: "The audit log's latest signed checkpoint (or the one of a given tree size)",
  strongroomOnly: true,
  body: Type.Object({ organizationId: Id(), treeSize: Type.Optional(TreeSize("A tree size a checkpoint was signed for")) }),
  result: AuditCheckpoint,
  async execute({ services }, body) {
    const checkpoint = await findCheckpoint(services.db, body.treeSize);
    if (!checkpoint)
      throw notFound(
        body.treeSize === undefined
          ? "the audit log has no checkpoint yet"
          : `no checkpoint of the audit log was signed at tree size ${body.treeSize}`,
      );
    return {
      checkpoint: checkpoint.note,
      treeSize: checkpoint.size,
      rootHash: Buffer.from(checkpointRoot(checkpoint)).toString("base64"),
      signedAt: checkpoint.signedAt.toISOString(),
    };
  },
});
