import { activityDefinitions } from "../pipeline/registry.js";
import { ADDRESS_FORMATS, curvesForAddressFormat, defaultPathForAddressFormat } from "../crypto/addresses/index.js";
import { queryDefinitions } from "../pipeline/registry.js";

/** The README's table of supported operations, generated from the registries. */
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

/** The README's table of address formats: the curves each accepts and its default path. */
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

/** Generated sections of the README, each between `<!-- name:start -->` and `<!-- name:end -->`. */
const SECTIONS: Record<string, () => string> = { operations: operationsTable, "address-formats": addressFormatsTable };

/** The README with every generated section replaced by its current content. */
export function withGeneratedTables(readme: string): string {
  let result = readme;
  for (const [name, render] of Object.entries(SECTIONS)) {
    const startMarker = `<!-- ${name}:start -->`;
    const endMarker = `<!-- ${name}:end -->`;
    const start = result.indexOf(startMarker);
    const end = result.indexOf(endMarker);
    if (start < 0 || end < start) throw new Error(`README.md lacks the ${startMarker} … ${endMarker} markers`);
    result = `${result.slice(0, start + startMarker.length)}\n${render()}\n${result.slice(end)}`;
  }
  return result;
}
