/**
 * APPLY_SETTINGS: the parent may style the one element that shows or takes the secret, nothing else. Only the
 * properties below, with values that cannot load anything or break out of the declaration.
 */
const ALLOWED_PROPERTIES = [
  "backgroundColor",
  "border",
  "borderColor",
  "borderRadius",
  "borderStyle",
  "borderWidth",
  "boxShadow",
  "color",
  "fontFamily",
  "fontSize",
  "fontWeight",
  "height",
  "letterSpacing",
  "lineHeight",
  "margin",
  "maxHeight",
  "maxWidth",
  "overflowWrap",
  "padding",
  "textAlign",
  "width",
  "wordBreak",
] as const;

const SAFE_VALUE = /^[#%(),.\-\w\s'"]{1,100}$/;

export function applyStyles(element: HTMLElement, settings: unknown): Record<string, string> {
  if (typeof settings !== "string") throw new Error("APPLY_SETTINGS: value must be the settings as a JSON string");
  let parsed: unknown;
  try {
    parsed = JSON.parse(settings);
  } catch {
    throw new Error("APPLY_SETTINGS: value is not JSON");
  }
  const styles = (parsed as { styles?: unknown } | null)?.styles ?? {};
  if (typeof styles !== "object" || styles === null || Array.isArray(styles)) throw new Error("APPLY_SETTINGS: styles must be an object");
  const applied: Record<string, string> = {};
  for (const [property, value] of Object.entries(styles)) {
    if (!(ALLOWED_PROPERTIES as readonly string[]).includes(property))
      throw new Error(`APPLY_SETTINGS: the style ${property} is not allowed`);
    if (typeof value !== "string" || !SAFE_VALUE.test(value) || /url\s*\(|expression\s*\(/i.test(value))
      throw new Error(`APPLY_SETTINGS: the value of ${property} is not allowed`);
    applied[property] = value;
  }
  Object.assign(element.style, applied);
  return applied;
}
