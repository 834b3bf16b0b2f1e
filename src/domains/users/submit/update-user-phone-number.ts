import { Type } from "@sinclair/typebox";
import { Id } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { checkUserContact, updateUserContact } from "../contacts.js";
import { contactEnrollment } from "../../credentials/enrollment.js";

export const updateUserPhoneNumber = defineActivity({
  operation: "update_user_phone_number",
  type: "ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER",
  intentKey: "updateUserPhoneNumberIntent",
  resultKey: "updateUserPhoneNumberResult",
  secretFields: { intent: ["verificationToken"] },
  result: Type.Object({ userId: Type.String() }),
  sdkMethod: "updateUserPhoneNumber",
  summary: "Set or remove (empty string) a user's phone number (E.164), optionally proven by a verification token",
  resource: "USER",
  action: "UPDATE",
  parameters: Type.Object({
    userId: Id(),
    userPhoneNumber: Type.String({ maxLength: 32 }),
    verificationToken: Type.Optional(Type.String({ minLength: 1 })),
  }),
  // Users may change their own contact only by proving the new one: a contact anyone could claim would let
  // them pass policies and receive logins keyed on it. Without a token it takes a policy or the root quorum.
  selfServiceUserId: (params) => (params.verificationToken !== undefined ? params.userId : undefined),
  enrolls: (params) => contactEnrollment(params.userId, params.userPhoneNumber),
  async validate(ctx, { userId, userPhoneNumber, verificationToken }) {
    await checkUserContact(ctx, "phone", { userId, value: userPhoneNumber, verificationToken });
  },
  async execute(ctx, { userId, userPhoneNumber, verificationToken }) {
    await updateUserContact(ctx, "phone", { userId, value: userPhoneNumber, verificationToken });
    return { userId };
  },
});
