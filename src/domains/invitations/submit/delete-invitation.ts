import { Type } from "@sinclair/typebox";
import { notFound } from "../../../errors.js";
import { Id } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import type { Queryable } from "../../../store/database.js";

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
  async validate({ db, organization }, { invitationId }) {
    await mustExist(requireInvitation(db, organization.id, invitationId));
  },
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

async function requireInvitation(db: Queryable, organizationId: string, invitationId: string): Promise<void> {
  const [row] = await db.query("SELECT id FROM invitations WHERE id = $1 AND organization_id = $2", [invitationId, organizationId]);
  if (!row) throw notFound(`invitationId: no invitation ${JSON.stringify(invitationId)} in organization ${organizationId}`);
}
