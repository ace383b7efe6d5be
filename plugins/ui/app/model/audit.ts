export type { AuditEntry } from 'vigil/domain';

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
