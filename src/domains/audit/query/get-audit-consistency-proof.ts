import { Type } from "@sinclair/typebox";
import { consistencyProof, findCheckpoint } from "../../../audit/read.js";
import { invalidArgument, notFound } from "../../../errors.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { Id } from "../../../schema/common.js";
import { TreeSize } from "../schemas.js";

/**
 * POST /strongroom/v1/query/get_audit_consistency_proof: the RFC 6962 consistency proof that the log's tree of
 * `firstTreeSize` leaves (a checkpoint kept earlier) is a prefix of the checkpoint of `secondTreeSize` (default:
 * the latest), with that checkpoint. Hashes only: it reveals no entry.
 */
export const getAuditConsistencyProof = defineQuery({
  operation: "get_audit_consistency_proof",
  sdkMethod: "getAuditConsistencyProof",
  summary: "An RFC 6962 consistency proof between two sizes of the audit log, with the later checkpoint",
  strongroomOnly: true,
  body: Type.Object({
    organizationId: Id(),
    firstTreeSize: TreeSize("The size of the earlier tree (a checkpoint kept elsewhere)"),
    secondTreeSize: Type.Optional(TreeSize("The size of the later tree: a signed checkpoint's (default: the latest)")),
  }),
  result: Type.Object({
    firstTreeSize: Type.Integer(),
    secondTreeSize: Type.Integer(),
    proof: Type.Array(Type.String(), { description: "The proof's hashes, base64, in RFC 6962 order" }),
    checkpoint: Type.String({ description: "The signed checkpoint of secondTreeSize" }),
  }),
  async execute({ services }, body) {
    const checkpoint = await findCheckpoint(services.db, body.secondTreeSize);
    if (!checkpoint) throw notFound(`no checkpoint of the audit log was signed at tree size ${body.secondTreeSize ?? "(latest)"}`);
    if (body.firstTreeSize > checkpoint.size)
      throw invalidArgument(`firstTreeSize: ${body.firstTreeSize} is larger than the checkpoint's tree (${checkpoint.size})`, [
        { field: "firstTreeSize", description: `at most ${checkpoint.size}` },
      ]);
    const proof = await consistencyProof(services.db, body.firstTreeSize, checkpoint.size);
    return {
      firstTreeSize: body.firstTreeSize,
      secondTreeSize: checkpoint.size,
      proof: proof.map((hash) => Buffer.from(hash).toString("base64")),
      checkpoint: checkpoint.note,
    };
  },
});
