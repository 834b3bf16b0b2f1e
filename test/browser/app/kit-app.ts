// @peculiar/x509 (inside @turnkey/crypto) needs tsyringe's Reflect polyfill loaded before the bundle evaluates it.
import "reflect-metadata";
import { TurnkeyProvider, useTurnkey, type TurnkeyProviderConfig } from "@turnkey/react-wallet-kit";
import "@turnkey/react-wallet-kit/styles.css";
import { createElement as h, useEffect } from "react";
import { createRoot } from "react-dom/client";
import { loadAppConfig } from "./app-config.js";

/**
 * A minimal app on the unchanged @turnkey/react-wallet-kit. The test drives the kit through the context it
 * exposes as `window.kit` (the same methods an app's buttons call) and reads the page the kit renders.
 */
declare global {
  interface Window {
    kit?: ReturnType<typeof useTurnkey>;
    kitErrors: string[];
  }
}
window.kitErrors = [];

function Status() {
  const kit = useTurnkey();
  useEffect(() => {
    window.kit = kit;
  }, [kit]);
  return h(
    "main",
    { style: { fontFamily: "sans-serif", padding: "16px" } },
    h("h1", null, "Strongroom + wallet kit"),
    h("p", null, "client: ", h("span", { "data-testid": "client-state" }, kit.clientState ?? "")),
    h("p", null, "auth: ", h("span", { "data-testid": "auth-state" }, kit.authState)),
    h("p", null, "user: ", h("span", { "data-testid": "user-name" }, kit.user?.userName ?? "")),
    h(
      "ul",
      { "data-testid": "wallets" },
      kit.wallets.map((wallet) =>
        h("li", { key: wallet.walletId }, `${wallet.walletName}: ${wallet.accounts.map((account) => account.address).join(", ")}`),
      ),
    ),
  );
}

const appConfig = await loadAppConfig();
const config: TurnkeyProviderConfig = {
  apiBaseUrl: appConfig.apiBaseUrl,
  authProxyUrl: appConfig.authProxyUrl,
  authProxyConfigId: appConfig.authProxyConfigId,
  organizationId: appConfig.organizationId,
  ...(appConfig.exportIframeUrl ? { exportIframeUrl: appConfig.exportIframeUrl } : {}),
  ...(appConfig.importIframeUrl ? { importIframeUrl: appConfig.importIframeUrl } : {}),
  auth: {
    createSuborgParams: {
      passkeyAuth: { customWallet: { walletName: "Default wallet", walletAccounts: [ethereumAccount()] } },
      emailOtpAuth: { customWallet: { walletName: "Default wallet", walletAccounts: [ethereumAccount()] } },
      oauth: { customWallet: { walletName: "Default wallet", walletAccounts: [ethereumAccount()] } },
    },
    ...(appConfig.googleClientId
      ? { oauthConfig: { oauthRedirectUri: appConfig.oauthRedirectUri, google: { primaryClientId: appConfig.googleClientId } } }
      : {}),
  },
};

function ethereumAccount() {
  return {
    curve: "CURVE_SECP256K1" as const,
    pathFormat: "PATH_FORMAT_BIP32" as const,
    path: "m/44'/60'/0'/0/0",
    addressFormat: "ADDRESS_FORMAT_ETHEREUM" as const,
  };
}

createRoot(document.getElementById("root")!).render(
  h(TurnkeyProvider, {
    config,
    callbacks: { onError: (error: Error) => void window.kitErrors.push(String(error.message ?? error)) },
    children: h(Status),
  }),
);
