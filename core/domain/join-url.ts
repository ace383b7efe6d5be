/**
 * `base` + `/` + `path` with exactly one slash between them, whatever either side brings
 * (`http://h/actuator/` + `/health` → `http://h/actuator/health`), as SBA joins an endpoint's
 * path to the management URL. Nothing else is normalised.
 */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
