/** What the test's static server hands the pages at /config.json: where Strongroom and its auth proxy are. */
export interface AppConfig {
  apiBaseUrl: string;
  authProxyUrl: string;
  authProxyConfigId: string;
  organizationId: string;
  exportIframeUrl?: string;
  importIframeUrl?: string;
  oauthRedirectUri?: string;
  googleClientId?: string;
}

export async function loadAppConfig(): Promise<AppConfig> {
  const response = await fetch("/config.json");
  return (await response.json()) as AppConfig;
}
