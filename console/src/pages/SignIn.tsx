import { useState, type FormEvent } from "react";
import { signInWithApiKey, signInWithPasskey, type Connection } from "../api/connection.js";
import { messageOf } from "../api/requests.js";
import { ErrorNote } from "../components/common.js";

/** Sign in with a passkey (a session key in IndexedDB afterwards) or with an API key kept in this tab only. */
export function SignIn({ onSignedIn }: { onSignedIn: (connection: Connection) => void }) {
  const [organizationId, setOrganizationId] = useState(localStorage.getItem("strongroom-console-organization") ?? "");
  const [method, setMethod] = useState<"passkey" | "api-key">("passkey");
  const [apiPublicKey, setApiPublicKey] = useState("");
  const [apiPrivateKey, setApiPrivateKey] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const id = organizationId.trim();
      const connection = method === "passkey" ? await signInWithPasskey(id) : await signInWithApiKey(id, apiPublicKey, apiPrivateKey);
      localStorage.setItem("strongroom-console-organization", id);
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
      <form onSubmit={(e) => void submit(e)} className="panel">
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
        <fieldset className="choice">
          <legend>Sign in with</legend>
          <label>
            <input type="radio" name="method" checked={method === "passkey"} onChange={() => setMethod("passkey")} /> a passkey
          </label>
          <label>
            <input type="radio" name="method" checked={method === "api-key"} onChange={() => setMethod("api-key")} /> an API key
          </label>
        </fieldset>
        {method === "api-key" && (
          <>
            <label>
              API public key
              <input
                value={apiPublicKey}
                onChange={(e) => setApiPublicKey(e.target.value)}
                required
                autoComplete="off"
                spellCheck={false}
              />
            </label>
            <label>
              API private key <small>(kept in this tab's memory only)</small>
              <input type="password" value={apiPrivateKey} onChange={(e) => setApiPrivateKey(e.target.value)} required autoComplete="off" />
            </label>
          </>
        )}
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
