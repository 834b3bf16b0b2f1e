import type { TurnkeyClient } from "@turnkey/http";
import { query, type ApiTimestamp } from "./requests.js";

/** The fields of the API's user, API key, authenticator and tag records that the console reads. */
export interface ApiKey {
  apiKeyId: string;
  apiKeyName: string;
  credential: { publicKey: string; type: string };
  createdAt: ApiTimestamp;
  expirationSeconds?: string;
}

export interface Authenticator {
  authenticatorId: string;
  authenticatorName: string;
  credentialId: string;
  aaguid: string;
  model: string;
  transports: string[];
  attestationType: string;
  createdAt: ApiTimestamp;
}

export interface User {
  userId: string;
  userName: string;
  userEmail?: string;
  userPhoneNumber?: string;
  apiKeys: ApiKey[];
  authenticators: Authenticator[];
  /** Tag IDs. */
  userTags: string[];
  createdAt: ApiTimestamp;
}

export interface Tag {
  tagId: string;
  tagName: string;
}

export interface Quorum {
  threshold: number;
  userIds: string[];
}

export const listUsers = (client: TurnkeyClient, organizationId: string) =>
  query<{ users: User[] }>(client, "list_users", { organizationId }).then((r) => r.users);

export const listUserTags = (client: TurnkeyClient, organizationId: string) =>
  query<{ userTags: Tag[] }>(client, "list_user_tags", { organizationId }).then((r) => r.userTags);

export const getRootQuorum = (client: TurnkeyClient, organizationId: string) =>
  query<{ configs: { quorum: Quorum; features: { name: string; value: string }[] } }>(client, "get_organization_configs", {
    organizationId,
  }).then((r) => r.configs);
