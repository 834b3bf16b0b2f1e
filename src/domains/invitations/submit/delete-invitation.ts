import { Type } from "@sinclair/typebox";
import { notFound } from "../../../errors.js";
import { Id } from "../../../schema/common.js";
import { defineActivity } from "../../../pipeline/activity-definition.js";

export const deleteInvitation = defineActivity({
  operation: "delete_invitation",
  type: "ACTIVITY_TYPE_DELETE_INVITATION",
  intentKey: "deleteInvitationIntent",
  resultKey: "deleteInvitationResult",
  result: Type.Object({ invitationId: Type.String() }),
  sdkMethod: "deleteInvitation",
  summary: "Withdraw an invitation",
  resource: "INVITATION",
  action: "DELETE",
  parameters: Type.Object({ invitationId: Id() }),
  async execute({ tx, organization }, { invitationId }) {
    const deleted = await tx.query("DELETE FROM invitations WHERE id = $1 AND organization_id = $2 RETURNING id", [
      invitationId,
      organization.id,
    ]);
    if (deleted.length === 0)
      throw notFound(`invitationId: no invitation ${JSON.stringify(invitationId)} in organization ${organization.id}`);
    return { invitationId };
  },
});
