import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { TSchema } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { activityDefinitions } from "../../src/pipeline/registry.js";
import { isVoteDefinition } from "../../src/pipeline/vote-definition.js";
import { queryDefinitions } from "../../src/pipeline/registry.js";

/**
 * Compares our operation registry with the upstream API description beside the checkout
 * (../shared/spec/public_api.swagger.json): same paths, same versioned types, intent and result
 * keys, and the same field names at the same places. Skipped where that file is absent.
 */
const swaggerPath = resolve(join(import.meta.dirname, "../.."), "../shared/spec/public_api.swagger.json");
const available = existsSync(swaggerPath);

interface SwaggerSchema {
  $ref?: string;
  type?: string;
  properties?: Record<string, SwaggerSchema>;
  items?: SwaggerSchema;
  required?: string[];
  enum?: string[];
}

/** Activities the upstream describes without a public path; served at /public/v1/submit/<operation> (DESIGN.md clarifications). */
const PATHLESS_UPSTREAM = new Set(["enable_auth_proxy", "update_auth_proxy_config", "disable_auth_proxy"]);

describe.skipIf(!available)("drift from the upstream API description", () => {
  const swagger = available
    ? (JSON.parse(readFileSync(swaggerPath, "utf8")) as {
        paths: Record<string, { post: { parameters: Array<{ schema: SwaggerSchema }> } }>;
        definitions: Record<string, SwaggerSchema>;
      })
    : undefined;
  const deref = (schema: SwaggerSchema): SwaggerSchema =>
    schema.$ref ? deref(swagger!.definitions[schema.$ref.split("/").pop()!]!) : schema;

  /** Every field we accept must exist upstream at the same place; every upstream-required field must be accepted. */
  function compare(ours: TSchema, theirs: SwaggerSchema, at: string, drift: string[]): void {
    const upstream = deref(theirs);
    if (ours.type === "array" && upstream.type === "array" && ours.items && upstream.items)
      return compare(ours.items as TSchema, upstream.items, `${at}[]`, drift);
    if (ours.type !== "object" || !ours.properties || !upstream.properties) return;
    for (const [name, schema] of Object.entries(ours.properties as Record<string, TSchema>)) {
      const theirsField = upstream.properties[name];
      if (!theirsField) drift.push(`${at}.${name} is not in the upstream schema`);
      else compare(schema, theirsField, `${at}.${name}`, drift);
    }
    for (const name of upstream.required ?? []) {
      if (!(name in ours.properties)) drift.push(`${at}.${name} is required upstream but not accepted`);
    }
  }

  it("serves activities exactly as the upstream describes them", () => {
    const drift: string[] = [];
    for (const definition of activityDefinitions) {
      const path = swagger!.paths[`/public/v1/submit/${definition.operation}`];
      if (!path && PATHLESS_UPSTREAM.has(definition.operation)) {
        // Upstream has the activity type, intent and result, but no public path: compare those.
        const intent = deref(swagger!.definitions.v1Intent!).properties![definition.intentKey];
        if (!intent) drift.push(`${definition.operation}: no upstream intent key ${definition.intentKey}`);
        else compare(definition.parameters, intent, `${definition.operation}.parameters`, drift);
        if (!deref(swagger!.definitions.v1Result!).properties![definition.resultKey])
          drift.push(`${definition.operation}: no upstream result key ${definition.resultKey}`);
        if (!deref(swagger!.definitions.v1ActivityType!).enum?.includes(definition.type))
          drift.push(`${definition.operation}: no upstream activity type ${definition.type}`);
        continue;
      }
      if (!path) {
        drift.push(`${definition.operation}: no such upstream path`);
        continue;
      }
      const request = deref(path.post.parameters[0]!.schema);
      const type = deref(request.properties!.type!);
      if (!type.enum?.includes(definition.type))
        drift.push(`${definition.operation}: type ${definition.type} is not upstream's ${type.enum?.join(",")}`);
      const intent = deref(swagger!.definitions.v1Intent!).properties!;
      const params = request.properties!.parameters!;
      if (intent[definition.intentKey]?.$ref !== params.$ref)
        drift.push(`${definition.operation}: intent key ${definition.intentKey} does not hold ${params.$ref}`);
      // approve/reject answer with the activity voted on, so they have no result key of their own.
      if (!isVoteDefinition(definition) && !deref(swagger!.definitions.v1Result!).properties![definition.resultKey])
        drift.push(`${definition.operation}: no upstream result key ${definition.resultKey}`);
      compare(definition.parameters, params, `${definition.operation}.parameters`, drift);
    }
    expect(drift).toEqual([]);
  });

  it("serves queries exactly as the upstream describes them", () => {
    const drift: string[] = [];
    for (const definition of queryDefinitions) {
      const path = swagger!.paths[`/public/v1/query/${definition.operation}`];
      if (definition.strongroomOnly) {
        if (path) drift.push(`${definition.operation}: marked Strongroom-only but the upstream has it`);
        continue;
      }
      if (!path) {
        drift.push(`${definition.operation}: no such upstream path`);
        continue;
      }
      compare(definition.body, path.post.parameters[0]!.schema, definition.operation, drift);
    }
    expect(drift).toEqual([]);
  });
});
