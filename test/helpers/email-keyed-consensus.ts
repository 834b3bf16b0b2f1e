import type { TestServer } from "./server.js";
import { createUserWithApiKey } from "./users.js";

/** A user of the root organization with an email an admin set and an API key; `as()` is their SDK client. */
export async function addUserWithEmail(server: TestServer, userName: string, userEmail?: string) {
  const { userId, key, credentials } = await createUserWithApiKey(server.client(), userName, { userEmail, apiKeyName: userName });
  return { userId, key, as: () => server.client(credentials) };
}

/** A policy whose consensus is keyed on a contact: create_user_tag passes only with an approver whose email is `email`. */
export async function allowTagsApprovedByEmail(server: TestServer, email: string) {
  await server.client().createPolicy({
    policyName: `${email} creates tags`,
    effect: "EFFECT_ALLOW",
    condition: "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'",
    consensus: `approvers.any(user, user.email == '${email}')`,
    notes: "",
  });
}
