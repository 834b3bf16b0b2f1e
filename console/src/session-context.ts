import { createContext, useContext } from "react";
import type { Connection } from "./api/connection.js";

export interface ConsoleSession {
  connection: Connection;
  /** The organization being viewed: the user's own, or one of its sub-organizations. */
  organizationId: string;
}

export const SessionContext = createContext<ConsoleSession | undefined>(undefined);

export function useSession(): ConsoleSession {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside a signed-in console");
  return session;
}
