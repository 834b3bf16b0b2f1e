import { Type } from "@sinclair/typebox";
import { verifyVerificationToken } from "../../auth/verification-token.js";
import { requireUser } from "../../records/users.js";
import { Id } from "../../schema/common.js";
import { defineActivity } from "../definition.js";
import { checkEmail } from "../shared/users.js";

export const updateUserEmail = defineActivity({
  operation: "update_user_email",
  type: "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
  intentKey: "updateUserEmailIntent",
  resultKey: "updateUserEmailResult",
  sdkMethod: "updateUserEmail",
  summary: "Set or remove (empty string) a user's email, optionally proven by a verification token",
  resource: "USER",
  action: "UPDATE",
  parameters: Type.Object({
    userId: Id(),
    userEmail: Type.String({ maxLength: 320 }),
    verificationToken: Type.Optional(Type.String({ minLength: 1 })),
  }),
  selfServiceUserId: (params) => params.userId,
  async execute({ tx, organization, now, services }, { userId, userEmail, verificationToken }) {
    await requireUser(tx, organization.id, userId);
    if (userEmail !== "") checkEmail(userEmail, "userEmail");
    if (verificationToken !== undefined) {
      await verifyVerificationToken(services.signer, verificationToken, { contact: userEmail, now, field: "verificationToken" });
    }
    await tx.query("UPDATE users SET email = $2, updated_at = $3 WHERE id = $1", [userId, userEmail === "" ? null : userEmail, now]);
    return { userId };
  },
});
