import { activityDefinitions } from "../pipeline/registry.js";
import { ADDRESS_FORMATS, curvesForAddressFormat, defaultPathForAddressFormat } from "../crypto/addresses/index.js";
import { queryDefinitions } from "../pipeline/registry.js";

/** The table of supported operations, generated from the registries. */
export function operationsTable(): string {
  const rows = [
    "| path | kind | activity type | intent key → result key | SDK method | what it does |",
    "|---|---|---|---|---|---|",
    ...activityDefinitions.map(
      (d) =>
        `| \`/public/v1/submit/${d.operation}\` | activity | \`${d.type}\` | \`${d.intentKey}\` → \`${d.resultKey}\` | \`${d.sdkMethod}\` | ${d.summary} |`,
    ),
    ...queryDefinitions.map((d) => `| \`/public/v1/query/${d.operation}\` | query | | | \`${d.sdkMethod}\` | ${d.summary} |`),
  ];
  return `${activityDefinitions.length} activities and ${queryDefinitions.length} queries.\n\n${rows.join("\n")}`;
}

/** The table of address formats: the curves each accepts and its default path. */
export function addressFormatsTable(): string {
  return [
    "| address format | curves | default path |",
    "|---|---|---|",
    ...ADDRESS_FORMATS.map(
      (f) =>
        `| \`${f}\` | ${curvesForAddressFormat(f)
          .map((c) => `\`${c}\``)
          .join(", ")} | \`${defaultPathForAddressFormat(f)}\` |`,
    ),
  ].join("\n");
}

/** Generated sections of the documentation: each is written between `<!-- name:start -->` and `<!-- name:end -->` in its page. */
export const GENERATED_SECTIONS: Record<string, { page: string; render: () => string }> = {
  operations: { page: "docs/api.md", render: operationsTable },
  "address-formats": { page: "docs/guide.md", render: addressFormatsTable },
};

/** The pages holding generated sections, relative to the repository root. */
export const GENERATED_PAGES = [...new Set(Object.values(GENERATED_SECTIONS).map((s) => s.page))];

/** A page's text with each generated section it holds replaced by its current content. */
export function withGeneratedTables(page: string, text: string): string {
  let result = text;
  for (const [name, section] of Object.entries(GENERATED_SECTIONS)) {
    if (section.page !== page) continue;
    const startMarker = `<!-- ${name}:start -->`;
    const endMarker = `<!-- ${name}:end -->`;
    const start = result.indexOf(startMarker);
    const end = result.indexOf(endMarker);
    if (start < 0 || end < start) throw new Error(`${page} lacks the ${startMarker} … ${endMarker} markers`);
    result = `${result.slice(0, start + startMarker.length)}\n${section.render()}\n${result.slice(end)}`;
  }
  return result;
}
