import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { ActivityResponse } from "../../src/records/activity.js";
import { activitiesByType, queriesByOperation } from "../../src/pipeline/registry.js";

/**
 * Where `value` departs from `schema`: TypeBox's errors, plus every field the schema does not declare
 * (TypeBox admits unknown fields, but a declared result must name everything the server answers).
 */
export function resultViolations(schema: TSchema, value: unknown, at = ""): string[] {
  const violations = [...Value.Errors(schema, value)].slice(0, 10).map((e) => `${at}${e.path || "/"}: ${e.message}`);
  return violations.length > 0 ? violations : undeclaredFields(schema, value, at);
}

function undeclaredFields(schema: TSchema, value: unknown, at: string): string[] {
  if (value === null || typeof value !== "object") return [];
  const union = schema.anyOf as TSchema[] | undefined;
  if (union) {
    const branch = union.find((option) => Value.Check(option, value));
    return branch ? undeclaredFields(branch, value, at) : [];
  }
  if (Array.isArray(value)) {
    const items = schema.items as TSchema | undefined;
    return items ? value.flatMap((item, i) => undeclaredFields(items, item, `${at}/${i}`)) : [];
  }
  const properties = schema.properties as Record<string, TSchema> | undefined;
  if (!properties) return []; // a record keyed freely (an activity's intent and result map)
  return Object.entries(value).flatMap(([name, field]) =>
    properties[name] ? undeclaredFields(properties[name], field, `${at}/${name}`) : [`${at}/${name}: not declared in the result schema`],
  );
}

/** The activity as the API answers it, and its result under its result key once it completed. */
function activityViolations(activity: unknown, at: string): string[] {
  const { type, status, result } = activity as { type: string; status: string; result: Record<string, unknown> };
  const definition = activitiesByType.get(type);
  if (!definition || status !== "ACTIVITY_STATUS_COMPLETED") return [];
  return resultViolations(definition.result, result[definition.resultKey], `${at}/result/${definition.resultKey}`);
}

/** The declared result of a /public/v1 response body: the activity (and its typed result) or the query's answer. */
export function responseViolations(path: string, body: unknown): string[] {
  const [, kind, operation] = /^\/public\/v1\/(submit|query)\/([a-z0-9_]+)$/.exec(path) ?? [];
  if (kind === "submit") {
    const violations = resultViolations(ActivityResponse, body);
    return violations.length > 0 ? violations : activityViolations((body as { activity: unknown }).activity, "/activity");
  }
  const definition = kind === "query" ? queriesByOperation.get(operation!) : undefined;
  if (!definition) return [];
  const violations = resultViolations(definition.result, body);
  if (violations.length > 0) return violations;
  if (operation === "get_activity") return activityViolations((body as { activity: unknown }).activity, "/activity");
  if (operation === "list_activities")
    return (body as { activities: unknown[] }).activities.flatMap((a, i) => activityViolations(a, `/activities/${i}`));
  return [];
}

let installed = false;

/**
 * Every successful answer a test receives from a Strongroom's /public/v1/submit or /query path is checked
 * against the result its definition declares: the global fetch (which the SDKs and the tests' own requests
 * use) is wrapped once, and a response that departs from its schema rejects the call that fetched it.
 */
export function checkResultsOfEveryResponse(): void {
  if (installed) return;
  installed = true;
  const fetchResponse = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const response = await fetchResponse(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (response.status !== 200 || !url.pathname.startsWith("/public/v1/")) return response;
    const body: unknown = await response
      .clone()
      .json()
      .catch(() => undefined);
    const violations = body === undefined ? [] : responseViolations(url.pathname, body);
    if (violations.length > 0)
      throw new Error(`${url.pathname} answered outside its declared result schema:\n  ${violations.join("\n  ")}`);
    return response;
  };
}
