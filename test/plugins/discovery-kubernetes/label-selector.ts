/** One requirement of an equality-based label selector. */
export type Requirement =
  | { readonly key: string; readonly op: '=' | '!='; readonly value: string }
  | { readonly key: string; readonly op: 'exists' | '!exists' };

/**
 * Parses `app=orders,tier!=canary,monitored,!legacy` (=, ==, !=, existence), the equality-based
 * forms of https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors.
 * Set-based forms (`in`, `notin`) are refused as the fake does not serve them.
 */
export function parseSelector(text: string): Requirement[] {
  if (text.trim() === '') return [];
  return text.split(',').map((part) => {
    const item = part.trim();
    const equality = /^([\w./-]+)\s*(==|=|!=)\s*([\w.-]*)$/.exec(item);
    if (equality) return { key: equality[1]!, op: equality[2] === '!=' ? '!=' : '=', value: equality[3]! };
    const existence = /^(!?)([\w./-]+)$/.exec(item);
    if (existence) return { key: existence[2]!, op: existence[1] ? '!exists' : 'exists' };
    throw new Error(`unable to parse requirement: ${item}`);
  });
}

export function matchesSelector(selector: readonly Requirement[], labels: Readonly<Record<string, string>> | undefined): boolean {
  const own = labels ?? {};
  return selector.every((requirement) => {
    const has = Object.hasOwn(own, requirement.key);
    switch (requirement.op) {
      case '=': return has && own[requirement.key] === requirement.value;
      case '!=': return !has || own[requirement.key] !== requirement.value;
      case 'exists': return has;
      case '!exists': return !has;
    }
  });
}
