import { useEffect, useState, type FormEvent } from "react";
import { forgetKeyShares, getSealStatus, giveKeyShare, type SealStatus } from "../api/seal.js";
import { messageOf } from "../api/requests.js";
import { ErrorNote } from "../components/common.js";

/** How often a sealed console asks the server again: shares given by others (curl, another browser) show here too. */
const POLL_MS = 2000;

/**
 * What the console shows while the server is sealed: the seal's status and, with `shamir`, a form that gives the key
 * shares one at a time (POST /strongroom/v1/unseal). The share field is a password field, emptied after every submit;
 * the share is sent to the server only. `onUnsealed` runs once the server answers unsealed, by this page or another.
 */
export function Unseal({ initial, onUnsealed }: { initial: SealStatus; onUnsealed: () => void }) {
  const [status, setStatus] = useState(initial);
  const [share, setShare] = useState("");
  const [refusal, setRefusal] = useState<string>();
  const [busy, setBusy] = useState(false);

  const show = (next: SealStatus) => {
    if (!next.sealed) onUnsealed();
    else setStatus(next);
  };
  useEffect(() => {
    const timer = setInterval(() => void getSealStatus().then(show, () => undefined), POLL_MS);
    return () => clearInterval(timer);
  }, []);

  async function send(request: () => Promise<SealStatus>) {
    setBusy(true);
    setRefusal(undefined);
    const before = status.progress;
    try {
      show(await request());
    } catch (error) {
      const now = await getSealStatus().catch(() => status);
      const reset = before > 0 && now.progress === 0 ? ` The progress went back to 0 of ${now.t}.` : "";
      setRefusal(`Share refused: ${messageOf(error).replace(/\.$/, "")}.${reset}`);
      show(now);
    } finally {
      setBusy(false);
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const given = share;
    setShare("");
    void send(() => giveKeyShare(given));
  }

  return (
    <main className="sign-in">
      <h1>Strongroom is sealed</h1>
      {!status.initialized ? (
        <p className="notice" role="status">
          No keyring yet: run <code>strongroom init --key-shares N --key-threshold T</code> on the server.
        </p>
      ) : status.t === 0 ? (
        <p className="notice" role="status">
          Sealed on demand: its keys, sealed by the <strong>{status.type}</strong> seal provider, are opened again when the server is
          restarted.
        </p>
      ) : (
        <form className="panel" aria-label="Unseal" onSubmit={submit}>
          <p className="muted">
            The keys are sealed by Shamir key shares ({status.t} of the {status.n} printed by <code>strongroom init</code> unseal it). Until
            then the server answers nothing else. Each holder gives their share here; it goes to the server only.
          </p>
          <p role="status">
            <progress max={status.t} value={status.progress} aria-label="Unseal progress" /> {status.progress} of {status.t} key shares
            given
          </p>
          <label>
            Key share
            <input
              type="password"
              value={share}
              onChange={(e) => setShare(e.target.value)}
              required
              autoComplete="off"
              spellCheck={false}
            />
          </label>
          <ErrorNote error={refusal} />
          <div className="actions">
            <button type="submit" disabled={busy}>
              {busy ? "Giving…" : "Give this share"}
            </button>
            {status.progress > 0 && (
              <button type="button" className="secondary" disabled={busy} onClick={() => void send(forgetKeyShares)}>
                Forget the shares given
              </button>
            )}
          </div>
        </form>
      )}
    </main>
  );
}
