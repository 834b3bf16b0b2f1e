import { Type } from "@sinclair/typebox";
import { Id } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { checkUserContact, updateUserContact } from "../contacts.js";
import { contactEnrollment } from "../../credentials/enrollment.js";

export const updateUserEmail = defineActivity({
  operation: "update_user_email",
  type: "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
  intentKey: "updateUserEmailIntent",
  resultKey: "updateUserEmailResult",
  secretFields: { intent: ["verificationToken"] },
  result: Type.Object({ userId: Type.String() }),
  sdkMethod: "updateUserEmail",
  summary: "Set or remove (empty string) a user's email, optionally proven by a verification token",
  resource: "USER",
  action: "UPDATE",
  parameters: Type.Object({
    userId: Id(),
    userEmail: Type.String({ maxLength: 320 }),
    verificationToken: Type.Optional(Type.String({ minLength: 1 })),
  }),
  // Users may change their own contact only by proving the new one: a contact anyone could claim would let
  // them pass policies and receive logins keyed on it. Without a token it takes a policy or the root quorum.
  selfServiceUserId: (params) => (params.verificationToken !== undefined ? params.userId : undefined),
  enrolls: (params) => contactEnrollment(params.userId, params.userEmail),
  async validate(ctx, { userId, userEmail, verificationToken }) {
    await checkUserContact(ctx, "email", { userId, value: userEmail, verificationToken });
  },
  async execute(ctx, { userId, userEmail, verificationToken }) {
    await updateUserContact(ctx, "email", { userId, value: userEmail, verificationToken });
    return { userId };
  },
});
