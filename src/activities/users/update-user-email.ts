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
    const value = userEmail === "" ? null : userEmail;
    const provenAt = verificationToken !== undefined && value !== null ? now : null;
    // Proven by the token, or unchanged and as verified as before (SET reads the row's old values).
    await tx.query(
      `UPDATE users SET email = $2, email_verified_at = CASE WHEN $4::timestamptz IS NOT NULL THEN $4 WHEN lower($2) = lower(email) THEN email_verified_at END, updated_at = $3
        WHERE id = $1`,
      [userId, value, now, provenAt],
    );
    return { userId };
  },
});
