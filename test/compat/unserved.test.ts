import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isServedPath } from "../../src/server/app.js";
import { UNSERVED_FAMILIES, UNSERVED_PATHS } from "../../src/server/unserved.js";
import { refusal } from "../helpers/refusal.js";
import { post } from "../helpers/requests.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { sharedReferenceFile } from "../helpers/shared-reference.js";

const swaggerPath = sharedReferenceFile("spec/public_api.swagger.json", "the table of unserved paths");
const swaggerPaths = swaggerPath
  ? Object.keys((JSON.parse(readFileSync(swaggerPath, "utf8")) as { paths: Record<string, unknown> }).paths)
  : undefined;

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

  it("leave a path that is neither served nor upstream a plain 404", async () => {
    const answer = await post(`${server.url}/public/v1/submit/no_such_operation`, "{}", {});
    expect(answer.status).toBe(404);
    expect(String(answer.json.message)).toContain("unknown activity operation");
  });
});
