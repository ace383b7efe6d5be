/** A value as it goes on the wire (JSON): held objects may be class instances with the same JSON form. */
export function wireForm(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}
