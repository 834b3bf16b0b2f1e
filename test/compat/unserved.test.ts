import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isServedPath } from "../../src/server/app.js";
import { UNSERVED_FAMILIES, UNSERVED_PATHS } from "../../src/server/unserved.js";
import { refusal } from "../helpers/refusal.js";
import { post } from "../helpers/requests.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { sharedReferenceFile } from "../helpers/shared-reference.js";
import { withSupplement } from "../docs/upstream-supplement.js";

const swaggerPath = sharedReferenceFile("spec/public_api.swagger.json", "the table of unserved paths");
/** Every path of the upstream description, with what @turnkey/http 6.6.0 added (test/docs/upstream-supplement.ts). */
const swaggerPaths = swaggerPath ? Object.keys(withSupplement(JSON.parse(readFileSync(swaggerPath, "utf8"))).paths) : undefined;

describe("the table of unserved paths", () => {
  it.skipIf(!swaggerPaths)("names every path of the upstream swagger that Strongroom does not serve", () => {
    const neither = swaggerPaths!.filter((path) => !isServedPath(path) && !(path in UNSERVED_PATHS));
    expect(neither).toEqual([]);
  });

  it.skipIf(!swaggerPaths)("names only upstream paths, none of them served (a served path leaves the table)", () => {
    expect(Object.keys(UNSERVED_PATHS).filter((path) => !swaggerPaths!.includes(path))).toEqual([]);
    expect(Object.keys(UNSERVED_PATHS).filter(isServedPath)).toEqual([]);
  });

  it("gives every family a path", () => {
    const used = new Set(Object.values(UNSERVED_PATHS));
    expect(Object.keys(UNSERVED_FAMILIES).filter((family) => !used.has(family as never))).toEqual([]);
  });
});

describe("unserved paths over HTTP", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it("answer 501 UNIMPLEMENTED naming the operation, its family and why, for every path in the table", async () => {
    const body = JSON.stringify({ organizationId: server.root.organizationId });
    for (const [path, family] of Object.entries(UNSERVED_PATHS)) {
      const answer = await post(`${server.url}${path}`, body, {});
      const operation = path.split("/").pop()!;
      const { title, reason } = UNSERVED_FAMILIES[family];
      expect(answer.status, path).toBe(501);
      expect(answer.json, path).toEqual({
        code: 12,
        message: `${operation} is not available on a self-hosted Strongroom server: ${title} — ${reason}`,
        details: [{ "@type": "type.googleapis.com/errors.v1.TurnkeyErrorDetail", turnkeyErrorCode: "UNIMPLEMENTED" }],
      });
    }
  });

  it("reach the SDK as a TurnkeyRequestError with the precise message", async () => {
    const client = server.client();
    const undelegate = await refusal(
      client.ethUndelegate7702({ from: "0x0000000000000000000000000000000000000000", caip2: "eip155:1" } as never),
    );
    expect(undelegate.code).toBe(12);
    expect(undelegate.message).toContain("eth_undelegate_7702 is not available on a self-hosted Strongroom server: EIP-7702 undelegation");
  });

  it("answer every path of @turnkey/http 6.6.0's client: none is an unknown operation", async () => {
    const require = createRequire(import.meta.url);
    const fetcher = readFileSync(
      join(dirname(require.resolve("@turnkey/http")), "__generated__/services/coordinator/public/v1/public_api.fetcher.js"),
      "utf8",
    );
    const paths = [...new Set([...fetcher.matchAll(/"(\/(?:public|tkhq)\/[A-Za-z0-9_/-]+)"/g)].map((m) => m[1]!))];
    expect(paths.length).toBeGreaterThan(180);
    const body = JSON.stringify({ organizationId: server.root.organizationId });
    const unknown: string[] = [];
    for (const path of paths) {
      const answer = await post(`${server.url}${path}`, body, {});
      // Served paths refuse the unstamped request (401), unserved ones answer 501; never 404.
      if (answer.status === 404 || ![401, 501].includes(answer.status)) unknown.push(`${path}: ${answer.status}`);
    }
    expect(unknown).toEqual([]);
  });

  it("leave a path that is neither served nor upstream a plain 404", async () => {
    const answer = await post(`${server.url}/public/v1/submit/no_such_operation`, "{}", {});
    expect(answer.status).toBe(404);
    expect(String(answer.json.message)).toContain("unknown activity operation");
  });
});
