import { useEffect, useState } from "react";

/** Hash routes (#/approvals, #/activities/<id>, …): the server serves one page, and links work without it. */
export const PAGES = [
  { path: "approvals", title: "Approvals" },
  { path: "activities", title: "Activity log" },
  { path: "audit", title: "Audit log" },
  { path: "policies", title: "Policies" },
  { path: "users", title: "Users" },
  { path: "credentials", title: "API keys & passkeys" },
  { path: "wallets", title: "Wallets" },
  { path: "private-keys", title: "Private keys" },
  { path: "webhooks", title: "Webhooks" },
  { path: "settings", title: "Organization" },
] as const;

export type PagePath = (typeof PAGES)[number]["path"];

export function useRoute(): { page: PagePath; id?: string } {
  const read = () => {
    const [page, id] = window.location.hash.replace(/^#\/?/, "").split("/");
    const known = PAGES.find((p) => p.path === page);
    return { page: known ? known.path : "approvals", ...(id ? { id: decodeURIComponent(id) } : {}) };
  };
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  return route;
}

export const href = (page: PagePath, id?: string) => `#/${page}${id ? `/${encodeURIComponent(id)}` : ""}`;
