/** One entry of `GET /audit` (plugins/audit/entry.ts), as the dashboard shows it. */
export interface AuditEntry {
  readonly id: number;
  readonly timestamp: string;
  readonly actor: { readonly name: string; readonly kind: string; readonly via: string | null };
  readonly address: string | null;
  readonly action: string;
  readonly method: string | null;
  readonly path: string | null;
  readonly instance: string | null;
  readonly application: string | null;
  readonly status: number | null;
  readonly durationMs: number | null;
  readonly detail: unknown;
}

export interface AuditFilter {
  readonly actor: string;
  readonly application: string;
  readonly instance: string;
  readonly action: string;
}

/** The query of `GET /audit` for a filter (empty fields left out). */
export function auditQuery(filter: Partial<AuditFilter>, limit?: number): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filter)) if (value && value.trim() !== '') params.set(key, value.trim());
  if (limit !== undefined) params.set('limit', String(limit));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
