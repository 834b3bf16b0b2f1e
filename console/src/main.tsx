import { StrictMode, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { resumeSession, signOut, type Connection } from "./api/connection.js";
import { query } from "./api/requests.js";
import { getSealStatus, type SealStatus } from "./api/seal.js";
import { NamesProvider } from "./components/names.js";
import { useLoader } from "./components/use-loader.js";
import { pageComponents } from "./pages/index.js";
import { SignIn } from "./pages/SignIn.js";
import { Unseal } from "./pages/Unseal.js";
import { href, PAGES, useRoute } from "./routes.js";
import { SessionContext } from "./session-context.js";
import "./styles.css";

function Console({ connection, onSignOut }: { connection: Connection; onSignOut: () => void }) {
  const route = useRoute();
  const [organizationId, setOrganizationId] = useState(connection.organizationId);
  const [menuOpen, setMenuOpen] = useState(false);
  // The switcher names each organization (its id is in the option's title): one get_organization each.
  const organizations = useLoader(async () => {
    const nameOf = (organizationId: string) =>
      query<{ organizationData: { name?: string } }>(connection.client, "get_organization", { organizationId }).then(
        (r) => r.organizationData.name || organizationId,
        () => organizationId,
      );
    const { organizationIds } = await query<{ organizationIds: string[] }>(connection.client, "list_suborgs", {
      organizationId: connection.organizationId,
    });
    const ids = [connection.organizationId, ...organizationIds];
    const names = await Promise.all(ids.map(nameOf));
    return ids.map((id, i) => ({ id, name: names[i]! }));
  }, [connection]);
  const ownName = organizations.data?.[0]?.name ?? connection.organizationId;
  const Page = pageComponents[route.page];
  const title = PAGES.find((p) => p.path === route.page)!.title;
  useEffect(() => setMenuOpen(false), [route.page]);
  useEffect(() => {
    document.title = `${title} · Strongroom console`;
  }, [title]);

  return (
    <SessionContext.Provider value={{ connection, organizationId }}>
      <div className="layout">
        <header className="topbar">
          <button className="menu-toggle" aria-expanded={menuOpen} aria-controls="navigation" onClick={() => setMenuOpen(!menuOpen)}>
            Menu
          </button>
          <strong>Strongroom</strong>
          <label className="organization">
            <span className="visually-hidden">Organization</span>
            <select value={organizationId} onChange={(e) => setOrganizationId(e.target.value)} aria-label="Organization">
              <option value={connection.organizationId} title={connection.organizationId}>
                {ownName} (yours)
              </option>
              {(organizations.data ?? []).slice(1).map(({ id, name }) => (
                <option key={id} value={id} title={id}>
                  {name} (sub-organization)
                </option>
              ))}
            </select>
          </label>
          <button className="secondary" onClick={onSignOut}>
            Sign out
          </button>
        </header>
        <nav id="navigation" className={menuOpen ? "open" : ""} aria-label="Console">
          <ul>
            {PAGES.map((page) => (
              <li key={page.path}>
                <a href={href(page.path)} aria-current={page.path === route.page ? "page" : undefined}>
                  {page.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main className="content">
          <h1>{title}</h1>
          <NamesProvider key={organizationId}>
            <Page key={`${route.page}:${organizationId}`} id={route.id} />
          </NamesProvider>
        </main>
      </div>
    </SessionContext.Provider>
  );
}

function App() {
  const [connection, setConnection] = useState<Connection | null | undefined>(undefined);
  // A sealed server answers only its seal status and the unseal: the console offers the unseal before anything else.
  const [sealed, setSealed] = useState<SealStatus | false | undefined>(undefined);
  useEffect(() => {
    resumeSession().then(
      (resumed) => setConnection(resumed ?? null),
      () => setConnection(null),
    );
    getSealStatus().then(
      (status) => setSealed(status.sealed ? status : false),
      () => setSealed(false),
    );
  }, []);
  if (connection === undefined || sealed === undefined) return <p className="muted">Loading…</p>;
  if (sealed) return <Unseal initial={sealed} onUnsealed={() => setSealed(false)} />;
  if (connection === null) return <SignIn onSignedIn={setConnection} />;
  return <Console connection={connection} onSignOut={() => void signOut().finally(() => setConnection(null))} />;
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
