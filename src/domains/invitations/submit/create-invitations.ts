import { Type } from "@sinclair/typebox";
import { randomUUID } from "node:crypto";
import { resourceExhausted } from "../../../errors.js";
import { requireUser } from "../../../records/user.js";
import { ACCESS_TYPES, Id, Name, StringEnum, IdList } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { requireUserTag } from "../../tags.js";
import { checkEmail } from "../../users/users.js";
import { lockOrganizationForLimits } from "../../../records/organization.js";
import { mustExist } from "../../references.js";

export const INVITATIONS_PER_ORGANIZATION = 100;

const InvitationParams = Type.Object({
  receiverUserName: Name(),
  receiverUserEmail: Type.String({ minLength: 1, maxLength: 320 }),
  receiverUserTags: Type.Array(Id()),
  accessType: StringEnum(ACCESS_TYPES),
  senderUserId: Id(),
});

export const createInvitations = defineActivity({
  operation: "create_invitations",
  type: "ACTIVITY_TYPE_CREATE_INVITATIONS",
  intentKey: "createInvitationsIntent",
  resultKey: "createInvitationsResult",
  result: Type.Object({ invitationIds: IdList() }),
  sdkMethod: "createInvitations",
  summary: "Invite people to join the organization as users",
  resource: "INVITATION",
  action: "CREATE",
  parameters: Type.Object({ invitations: Type.Array(InvitationParams, { minItems: 1, maxItems: 100 }) }),
  async validate({ db, organization }, { invitations }) {
    for (const [index, invitation] of invitations.entries()) {
      const at = `invitations[${index}]`;
      checkEmail(invitation.receiverUserEmail, `${at}.receiverUserEmail`);
      await mustExist(requireUser(db, organization.id, invitation.senderUserId, `${at}.senderUserId`));
      for (const [tagIndex, tagId] of invitation.receiverUserTags.entries())
        await mustExist(requireUserTag(db, organization.id, tagId, `${at}.receiverUserTags[${tagIndex}]`));
    }
  },
  async execute({ tx, organization, now }, { invitations }) {
    await lockOrganizationForLimits(tx, organization.id);
    const [{ count } = { count: 0 }] = await tx.query<{ count: number }>(
      "SELECT count(*)::int AS count FROM invitations WHERE organization_id = $1",
      [organization.id],
    );
    if (count + invitations.length > INVITATIONS_PER_ORGANIZATION) {
      throw resourceExhausted(
        `organization ${organization.id} would have ${count + invitations.length} invitations; the maximum is ${INVITATIONS_PER_ORGANIZATION}`,
        "REQUEST_INVALID",
      );
    }
    const invitationIds: string[] = [];
    for (const [index, invitation] of invitations.entries()) {
      const at = `invitations[${index}]`;
      await requireUser(tx, organization.id, invitation.senderUserId, `${at}.senderUserId`);
      for (const [tagIndex, tagId] of invitation.receiverUserTags.entries())
        await requireUserTag(tx, organization.id, tagId, `${at}.receiverUserTags[${tagIndex}]`);
      const id = randomUUID();
      await tx.query(
        `INSERT INTO invitations (id, organization_id, sender_user_id, receiver_user_name, receiver_email, receiver_user_tags, access_type, status, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, 'INVITATION_STATUS_CREATED', $8, $8)`,
        [
          id,
          organization.id,
          invitation.senderUserId,
          invitation.receiverUserName,
          invitation.receiverUserEmail,
          JSON.stringify(invitation.receiverUserTags),
          invitation.accessType,
          now,
        ],
      );
      invitationIds.push(id);
    }
    return { invitationIds };
  },
});
