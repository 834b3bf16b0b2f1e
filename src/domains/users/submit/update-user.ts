import { Type } from "@sinclair/typebox";
import { notFound } from "../../../errors.js";
import { requireUser } from "../../../records/user.js";
import { Id, Name } from "../../../schema/common.js";
import { defineActivity, assertedBySelf } from "../../../operations/activity-definition.js";
import { assertUserNameFree, checkEmail, checkPhoneNumber } from "../users.js";
import { selfAssertedAfter } from "../contacts.js";
import { requireUserTag } from "../../tags.js";
import { mustExist } from "../../references.js";
import { contactEnrollment } from "../../credentials/enrollment.js";

/**
 * The combined profile update. Fields left out stay as they are; an empty email or phone number removes it.
 * A non-empty userTagIds becomes the user's whole set of tags; empty (the documented "not needed") keeps them.
 * It is not self-service: tags carry permissions, and a name or contact a user sets on themselves could pass
 * a policy keyed on it (update_user has no verification token). A value a policy let the user set on
 * themselves is self-asserted: kept, but never seen by policies nor matched by logins.
 */
export const updateUser = defineActivity({
  operation: "update_user",
  type: "ACTIVITY_TYPE_UPDATE_USER",
  intentKey: "updateUserIntent",
  resultKey: "updateUserResult",
  result: Type.Object({ userId: Type.String() }),
  sdkMethod: "updateUser",
  summary: "Change a user's name, email, phone number and (when given) set of tags in one activity",
  resource: "USER",
  action: "UPDATE",
  parameters: Type.Object({
    userId: Id(),
    userName: Type.Optional(Name()),
    userEmail: Type.Optional(Type.String({ maxLength: 320 })),
    userTagIds: Type.Optional(Type.Array(Id(), { maxItems: 100 })),
    userPhoneNumber: Type.Optional(Type.String({ maxLength: 32 })),
  }),
  enrolls: (params) => contactEnrollment(params.userId, params.userEmail, params.userPhoneNumber),
  async validate({ db, organization }, { userId, userEmail, userTagIds, userPhoneNumber }) {
    await mustExist(requireUser(db, organization.id, userId));
    if (userEmail) checkEmail(userEmail, "userEmail");
    if (userPhoneNumber) checkPhoneNumber(userPhoneNumber, "userPhoneNumber");
    for (const [index, tagId] of (userTagIds ?? []).entries())
      await mustExist(requireUserTag(db, organization.id, tagId, `userTagIds[${index}]`));
  },
  async execute({ tx, organization, now, requesterUserId, byRootQuorum }, { userId, userName, userEmail, userTagIds, userPhoneNumber }) {
    const user = await requireUser(tx, organization.id, userId);
    if (userName !== undefined && userName !== user.name) await assertUserNameFree(tx, organization.id, userName, "userName");
    const flag = (column: string, value: string, unchanged: string) =>
      `CASE WHEN ${value}::text IS NULL THEN ${column} ELSE ${selfAssertedAfter(column, `nullif(${value}, '')`, unchanged, "false", "$6::boolean")} END`;
    await tx.query(
      // A contact that changes is no longer verified (SET reads the row's old values).
      `UPDATE users SET name = coalesce($2, name),
              name_self_asserted = ${flag("name_self_asserted", "$2", "$2 = name")},
              email = CASE WHEN $3::text IS NULL THEN email ELSE nullif($3, '') END,
              email_verified_at = CASE WHEN $3::text IS NULL OR lower($3) = lower(email) THEN email_verified_at END,
              email_self_asserted = ${flag("email_self_asserted", "$3", "lower($3) = lower(email)")},
              phone_number = CASE WHEN $4::text IS NULL THEN phone_number ELSE nullif($4, '') END,
              phone_number_verified_at = CASE WHEN $4::text IS NULL OR $4 = phone_number THEN phone_number_verified_at END,
              phone_number_self_asserted = ${flag("phone_number_self_asserted", "$4", "$4 = phone_number")},
              updated_at = $5
        WHERE id = $1`,
      [
        userId,
        userName ?? null,
        userEmail ?? null,
        userPhoneNumber ?? null,
        now,
        assertedBySelf({ requesterUserId, byRootQuorum }, userId),
      ],
    );
    if (userTagIds?.length) {
      const tagIds = [...new Set(userTagIds)];
      const found = await tx.query<{ id: string }>("SELECT id FROM user_tags WHERE organization_id = $1 AND id = ANY($2::text[])", [
        organization.id,
        tagIds,
      ]);
      const missing = userTagIds.findIndex((id) => !found.some((t) => t.id === id));
      if (missing >= 0)
        throw notFound(`userTagIds[${missing}]: no user tag ${JSON.stringify(userTagIds[missing])} in organization ${organization.id}`);
      await tx.query("DELETE FROM user_tag_assignments WHERE user_id = $1 AND NOT (tag_id = ANY($2::text[]))", [userId, tagIds]);
      await tx.query("INSERT INTO user_tag_assignments (tag_id, user_id) SELECT unnest($2::text[]), $1 ON CONFLICT DO NOTHING", [
        userId,
        tagIds,
      ]);
    }
    return { userId };
  },
});
