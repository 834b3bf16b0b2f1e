import type { Static, TObject, TSchema } from "@sinclair/typebox";
import type { Principal } from "../auth/principal.js";
import type { OrganizationRow } from "../records/organization.js";
import type { Services } from "../services.js";
import type { SignerRules } from "./signers.js";

export interface QueryContext {
  organization: OrganizationRow;
  principal: Principal;
  now: Date;
  services: Services;
}

/** One operation of `/public/v1/query/<operation>`, declared in one file. */
export interface QueryDefinition<S extends TObject = TObject> extends SignerRules {
  operation: string;
  sdkMethod: string;
  summary: string;
  /** Strongroom's own addition, not part of the upstream API (no SDK method calls it). */
  strongroomOnly?: boolean;
  /** The request body, `organizationId` included. */
  body: S;
  /** The response body (TypeBox): the OpenAPI document's response and the drift test read it. */
  result: TSchema;
  execute(ctx: QueryContext, body: Static<S>): Promise<Record<string, unknown>>;
  /** Strongroom's own queries: the answer as NDJSON, for a request that accepts application/x-ndjson. */
  asNdjson?(result: Record<string, unknown>): string;
}

export function defineQuery<S extends TObject>(definition: QueryDefinition<S>): QueryDefinition {
  return definition as unknown as QueryDefinition;
}
