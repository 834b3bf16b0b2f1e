import { Type } from "@sinclair/typebox";
import { verifyVerificationToken } from "../../auth/verification-token.js";
import { requireUser } from "../../records/users.js";
import { Id } from "../../schema/common.js";
import { defineActivity } from "../definition.js";
import { checkPhoneNumber } from "../shared/users.js";

export const updateUserPhoneNumber = defineActivity({
  operation: "update_user_phone_number",
  type: "ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER",
  intentKey: "updateUserPhoneNumberIntent",
  resultKey: "updateUserPhoneNumberResult",
  sdkMethod: "updateUserPhoneNumber",
  summary: "Set or remove (empty string) a user's phone number (E.164), optionally proven by a verification token",
  resource: "USER",
  action: "UPDATE",
  parameters: Type.Object({
    userId: Id(),
    userPhoneNumber: Type.String({ maxLength: 32 }),
    verificationToken: Type.Optional(Type.String({ minLength: 1 })),
  }),
  selfServiceUserId: (params) => params.userId,
  async execute({ tx, organization, now, services }, { userId, userPhoneNumber, verificationToken }) {
    await requireUser(tx, organization.id, userId);
    if (userPhoneNumber !== "") checkPhoneNumber(userPhoneNumber, "userPhoneNumber");
    if (verificationToken !== undefined) {
      await verifyVerificationToken(services.signer, verificationToken, { contact: userPhoneNumber, now, field: "verificationToken" });
    }
    const value = userPhoneNumber === "" ? null : userPhoneNumber;
    const provenAt = verificationToken !== undefined && value !== null ? now : null;
    // Proven by the token, or unchanged and as verified as before (SET reads the row's old values).
    await tx.query(
      `UPDATE users SET phone_number = $2, phone_number_verified_at = CASE WHEN $4::timestamptz IS NOT NULL THEN $4 WHEN $2 = phone_number THEN phone_number_verified_at END, updated_at = $3
        WHERE id = $1`,
      [userId, value, now, provenAt],
    );
    return { userId };
  },
});
