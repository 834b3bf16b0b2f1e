import type { TSchema } from "@sinclair/typebox";
import { ActivityResponse } from "../records/activity.js";
import type { ActivityDefinition } from "../operations/activity-definition.js";
import { activityDefinitions, queryDefinitions } from "../pipeline/registry.js";
import { isVoteDefinition } from "../operations/vote-definition.js";
import { strongroomQueries, strongroomQueryPath } from "./strongroom-queries.js";

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema> };

/** TypeBox schemas are JSON Schema plus symbol keys; a JSON round trip leaves the plain schema. */
const plain = (schema: TSchema): JsonSchema => JSON.parse(JSON.stringify(schema)) as JsonSchema;

/** The activity response with the operation's result typed under `result.<resultKey>` (present once it completed). */
const activityResponse = (definition: ActivityDefinition): JsonSchema => ({
  allOf: [
    { $ref: "#/components/schemas/ActivityResponse" },
    {
      type: "object",
      properties: {
        activity: {
          type: "object",
          properties: { result: { type: "object", properties: { [definition.resultKey]: plain(definition.result) } } },
        },
      },
    },
  ],
});

const security = [{ ApiKeyAuth: [] }, { AuthenticatorAuth: [] }];
const errorResponse = {
  description: "An error in the API's shape",
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
};

/** The OpenAPI 3.1 document of everything Strongroom serves, derived from the operation registries. */
export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const d of activityDefinitions) {
    paths[`/public/v1/submit/${d.operation}`] = {
      post: {
        operationId: d.sdkMethod,
        summary: d.summary,
        tags: [d.resource],
        security,
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["type", "timestampMs", "organizationId", "parameters"],
                properties: {
                  type: { type: "string", enum: [d.type] },
                  timestampMs: { type: "string", description: "epoch milliseconds; under one hour old, at most five minutes ahead" },
                  organizationId: { type: "string" },
                  parameters: plain(d.parameters),
                  generateAppProofs: { type: "boolean" },
                },
              },
            },
          },
        },
        responses: {
          "200": isVoteDefinition(d)
            ? {
                description: "The activity voted on, with its own result once it completed",
                content: { "application/json": { schema: { $ref: "#/components/schemas/ActivityResponse" } } },
              }
            : {
                description: `The activity; on completion its result is under result.${d.resultKey}`,
                content: { "application/json": { schema: activityResponse(d) } },
              },
          default: errorResponse,
        },
      },
    };
  }
  const queries = [
    ...queryDefinitions.map((d) => ({ d, path: `/public/v1/query/${d.operation}` })),
    ...strongroomQueries.map((d) => ({ d, path: strongroomQueryPath(d.operation) })),
  ];
  for (const { d, path } of queries) {
    paths[path] = {
      post: {
        operationId: d.sdkMethod,
        summary: d.summary,
        security,
        requestBody: { required: true, content: { "application/json": { schema: plain(d.body) } } },
        responses: {
          "200": { description: "The query's answer", content: { "application/json": { schema: plain(d.result) } } },
          default: errorResponse,
        },
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "Strongroom", version: "1", description: "The Turnkey public API as Strongroom serves it" },
    paths,
    components: {
      securitySchemes: {
        ApiKeyAuth: { type: "apiKey", in: "header", name: "X-Stamp" },
        AuthenticatorAuth: { type: "apiKey", in: "header", name: "X-Stamp-WebAuthn" },
      },
      schemas: {
        Error: {
          type: "object",
          required: ["code", "message", "details"],
          properties: { code: { type: "integer" }, message: { type: "string" }, details: { type: "array", items: { type: "object" } } },
        },
        ActivityResponse: plain(ActivityResponse),
      },
    },
  };
}
