import { useState, type FormEvent } from "react";
import { passkeyAddressProblem } from "../api/address.js";
import { signInWithApiKey, signInWithPasskey, type Connection } from "../api/connection.js";
import { parsePastedCredentials } from "../api/pasted-credentials.js";
import { messageOf } from "../api/requests.js";
import { ErrorNote } from "../components/common.js";

type Method = "passkey" | "api-key";
const METHOD_KEY = "strongroom-console-method";

/**
 * Sign in with an API key kept in this tab only (the default: a new server has only its root API key) or with a
 * passkey (a session key in IndexedDB afterwards). The method that worked last time is preselected.
 */
export function SignIn({ onSignedIn }: { onSignedIn: (connection: Connection) => void }) {
  const addressProblem = passkeyAddressProblem(window.location);
  const [organizationId, setOrganizationId] = useState(localStorage.getItem("strongroom-console-organization") ?? "");
  const [method, setMethod] = useState<Method>(!addressProblem && localStorage.getItem(METHOD_KEY) === "passkey" ? "passkey" : "api-key");
  const [apiPrivateKey, setApiPrivateKey] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  function paste(text: string) {
    const found = parsePastedCredentials(text);
    if (found.organizationId) setOrganizationId(found.organizationId);
    if (found.apiPrivateKey) setApiPrivateKey(found.apiPrivateKey);
    setError(
      found.organizationId || found.apiPrivateKey
        ? undefined
        : "Nothing found to sign in with: paste initial-credentials.json (or init's JSON), or .env lines with ORGANIZATION_ID and API_PRIVATE_KEY.",
    );
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const id = organizationId.trim();
      const connection = method === "passkey" ? await signInWithPasskey(id) : await signInWithApiKey(id, apiPrivateKey);
      localStorage.setItem("strongroom-console-organization", id);
      localStorage.setItem(METHOD_KEY, method);
      onSignedIn(connection);
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="sign-in">
      <h1>Strongroom console</h1>
      {addressProblem && (
        <p className="notice" role="note">
          {addressProblem.message}{" "}
          {addressProblem.betterUrl && (
            <>
              <a href={addressProblem.betterUrl}>{addressProblem.betterUrl}</a> to use passkeys; API keys work here.
            </>
          )}
        </p>
      )}
      <form onSubmit={(e) => void submit(e)} className="panel">
        <fieldset className="choice">
          <legend>Sign in with</legend>
          <label>
            <input type="radio" name="method" checked={method === "api-key"} onChange={() => setMethod("api-key")} /> an API key
          </label>
          <label>
            <input type="radio" name="method" checked={method === "passkey"} onChange={() => setMethod("passkey")} /> a passkey
          </label>
        </fieldset>
        {method === "api-key" && (
          <label>
            Paste credentials <small>(optional: initial-credentials.json, init's JSON or .env lines fill the fields below)</small>
            <textarea
              rows={2}
              value=""
              onChange={(e) => paste(e.target.value)}
              autoComplete="off"
              spellCheck={false}
              placeholder='{"organizationId": "…", "apiPrivateKey": "…"}'
            />
          </label>
        )}
        <label>
          Organization ID
          <input
            value={organizationId}
            onChange={(e) => setOrganizationId(e.target.value)}
            required
            autoComplete="off"
            spellCheck={false}
          />
        </label>
        {method === "api-key" && (
          <label>
            API private key <small>(the public key is derived from it; kept in this tab's memory only)</small>
            <input type="password" value={apiPrivateKey} onChange={(e) => setApiPrivateKey(e.target.value)} required autoComplete="off" />
          </label>
        )}
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
