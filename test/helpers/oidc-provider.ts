import { OAuth2Server } from "oauth2-mock-server";

/** A real OIDC provider on loopback (oauth2-mock-server) signing with a fresh ES256 key; `issuer` is its URL. */
export async function startOidcProvider(): Promise<{ provider: OAuth2Server; issuer: string }> {
  const provider = new OAuth2Server();
  await provider.issuer.keys.generate("ES256");
  await provider.start(0, "127.0.0.1");
  const issuer = `http://127.0.0.1:${provider.address().port}`;
  provider.issuer.url = issuer;
  return { provider, issuer };
}
