/** Whether an object has no own enumerable keys: a loop that stops at the first, where `Object.keys` builds the whole list. */
export function isEmptyObject(value: Readonly<Record<string, unknown>>): boolean {
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return true;
}
