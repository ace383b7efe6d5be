/** The list with `item` taken out if it is there, or added at the end if not (filter chips). */
export function toggled<T>(list: readonly T[], item: T): T[] {
  return list.includes(item) ? list.filter((entry) => entry !== item) : [...list, item];
}
