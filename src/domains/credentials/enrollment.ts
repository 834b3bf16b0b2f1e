import type { EnrolledFactor, Enrollment } from "../../operations/activity-definition.js";

/** A new user as the activities creating users take it: the credentials and contacts it starts with. */
interface NewUserCredentials {
  userEmail?: string;
  userPhoneNumber?: string;
  apiKeys?: unknown[];
  authenticators?: unknown[];
  oauthProviders?: unknown[];
}

/** What creating these users enrolls: every kind of credential or contact any of them starts with. */
export function newUsersEnrollment(users: NewUserCredentials[]): Enrollment {
  const factors = new Set<EnrolledFactor>();
  for (const user of users) {
    if (user.apiKeys?.length) factors.add("api-key");
    if (user.authenticators?.length) factors.add("passkey");
    if (user.oauthProviders?.length) factors.add("oauth-provider");
    if (user.userEmail || user.userPhoneNumber) factors.add("contact");
  }
  return { factors: [...factors] };
}

/** A contact set on a user: a non-empty one is a factor (a code sent to it logs in); removing one enrolls nothing. */
export const contactEnrollment = (userId: string, ...values: Array<string | undefined>): Enrollment => ({
  userId,
  factors: values.some((value) => value !== undefined && value !== "") ? ["contact"] : [],
});
