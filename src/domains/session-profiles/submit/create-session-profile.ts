import { Type } from "@sinclair/typebox";
import { randomUUID } from "node:crypto";
import { alreadyExists, invalidField } from "../../../errors.js";
import { Int64String, Name } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { boundedSeconds, SESSION_MAX_SECONDS } from "../../credentials/lifetimes.js";
import { checkPolicyExpression } from "../../policies/policies.js";

export const createSessionProfile = defineActivity({
  operation: "create_session_profile",
  type: "ACTIVITY_TYPE_CREATE_SESSION_PROFILE",
  intentKey: "createSessionProfileIntent",
  resultKey: "createSessionProfileResult",
  result: Type.Object({ sessionProfileId: Type.String() }),
  sdkMethod: "createSessionProfile",
  summary: "Create a named, immutable session profile: a scope every request of its sessions must satisfy, and a ceiling on their lifetime",
  resource: "SESSION_PROFILE",
  action: "CREATE",
  parameters: Type.Object({
    sessionProfileName: Name("Human-readable name for a session profile"),
    scope: Type.String({ maxLength: 4096 }),
    expirationSeconds: Type.Optional(Int64String("Ceiling on the lifetime of sessions issued under the profile")),
    notes: Type.Optional(Type.String({ maxLength: 4096 })),
  }),
  async validate(_ctx, { scope, expirationSeconds }) {
    if (scope.trim() === "") throw invalidField("scope", "must be a policy-language condition (write 'true' to allow every activity)");
    // The scope is a condition of the policy language: parsed, type-checked and costed as one.
    checkPolicyExpression(scope, "condition", "scope");
    if (expirationSeconds !== undefined) boundedSeconds(expirationSeconds, "expirationSeconds", SESSION_MAX_SECONDS);
  },
  async execute({ tx, organization, now }, { sessionProfileName, scope, expirationSeconds, notes }) {
    const id = randomUUID();
    const [inserted] = await tx.query<{ id: string }>(
      `INSERT INTO session_profiles (id, organization_id, name, scope, expiration_seconds, notes, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (organization_id, name) DO NOTHING RETURNING id`,
      [id, organization.id, sessionProfileName, scope, expirationSeconds ?? null, notes ?? "", now],
    );
    if (!inserted)
      throw alreadyExists(
        `sessionProfileName: a session profile named ${JSON.stringify(sessionProfileName)} already exists in organization ${organization.id} (profiles are immutable: create one under another name)`,
      );
    return { sessionProfileId: id };
  },
});
