import { Type } from "@sinclair/typebox";
import { entryOwner, findCheckpoint, inclusionProof } from "../../../audit/read.js";
import { invalidArgument, notFound } from "../../../errors.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { Id } from "../../../schema/common.js";
import { TreeSize } from "../schemas.js";

/**
 * POST /strongroom/v1/query/get_audit_inclusion_proof: a C2SP tlog-proof that one of the organization's own
 * entries is in the log, against the latest checkpoint (or the one of `treeSize`). An entry of another
 * organization is answered as not found, as if it did not exist.
 */
export const getAuditInclusionProof = defineQuery({
  operation: "get_audit_inclusion_proof",
  sdkMethod: "getAuditInclusionProof",
  summary: "A C2SP tlog-proof that one of the organization's audit entries is in the log's signed tree",
  strongroomOnly: true,
  body: Type.Object({
    organizationId: Id(),
    index: TreeSize("The entry's log index"),
    treeSize: Type.Optional(TreeSize("Prove it in the checkpoint of this size (default: the latest)")),
  }),
  result: Type.Object({
    index: Type.Integer(),
    entry: Type.String({ description: "The entry's exact bytes" }),
    proof: Type.String({ description: "The C2SP tlog-proof: index, inclusion proof, and the checkpoint" }),
  }),
  async execute({ organization, services }, body) {
    const owner = await entryOwner(services.db, body.index);
    if (!owner || owner.organizationId !== organization.id)
      throw notFound(`organization ${organization.id} has no audit entry at index ${body.index}`);
    const checkpoint = await findCheckpoint(services.db, body.treeSize);
    if (!checkpoint) throw notFound(`no checkpoint of the audit log was signed at tree size ${body.treeSize ?? "(latest)"}`);
    if (checkpoint.size <= body.index)
      throw invalidArgument(
        `index: entry ${body.index} is not yet covered by the checkpoint of size ${checkpoint.size}; ask again once a later one is signed`,
        [{ field: "index", description: `beyond the checkpoint of size ${checkpoint.size}` }],
      );
    return { index: body.index, entry: owner.entry, proof: await inclusionProof(services.db, body.index, checkpoint) };
  },
});
