/**
 * Rendezvous (highest random weight) hashing: the owner of an instance is the live node with the
 * highest weight for it. Every node computes the same owner from the same live set with no
 * coordination, and when a node joins or leaves only the instances it wins or held move.
 */
export function ownerOf(id: string, nodes: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestWeight = -1;
  for (const node of nodes) {
    const weight = weightOf(node, id);
    if (weight > bestWeight || (weight === bestWeight && best !== undefined && node < best)) {
      best = node;
      bestWeight = weight;
    }
  }
  return best;
}

/** FNV-1a over `node \0 id`, finished with murmur3's mixer so similar ids spread evenly. */
export function weightOf(node: string, id: string): number {
  let hash = 0x811c9dc5;
  const mix = (text: string) => {
    for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  };
  mix(node);
  hash = Math.imul(hash ^ 0, 0x01000193);
  mix(id);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}
