import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The relative links of the manual (README.md and docs/*.md) and the anchors they point at, read
 * as GitHub renders them, so a page that moves or a heading that is renamed breaks a test instead
 * of a reader's click.
 */

/** A link as written: the file it is in, its line, and its target (`path`, `#anchor` or both). */
export interface MarkdownLink {
  file: string;
  line: number;
  target: string;
}

/** The lines outside fenced code blocks, numbered from 1. */
function* outsideFences(text: string): Generator<{ line: number; raw: string }> {
  let fence: string | undefined;
  for (const [index, raw] of text.split('\n').entries()) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(raw)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) fence = fence === undefined ? marker : undefined;
    else if (fence === undefined) yield { line: index + 1, raw };
  }
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces as hyphens. */
export function headingSlug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\p{M}_\- ]/gu, '').replace(/ /g, '-');
}

/** Every anchor a page offers: its headings (a repeated one gets `-1`, `-2`, …) and explicit ids. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { raw } of outsideFences(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw)?.[1];
    if (heading !== undefined) {
      const slug = headingSlug(heading);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const id of raw.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id[1]!);
  }
  return anchors;
}

/** The relative links and images of a page (absolute URLs and mailto: left out). */
export function linksOf(file: string, text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { line, raw } of outsideFences(text)) {
    // Inline code is no link: `](x)` inside backticks is text.
    for (const match of raw.replace(/(`+)[\s\S]*?\1/g, '').matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links.push({ file, line, target });
    }
  }
  return links;
}

/**
 * What is wrong with each link of `files` (paths relative to `root`): a file or folder that does
 * not exist, or an anchor its page does not have. An empty list when every link resolves.
 */
export function brokenLinks(root: string, files: readonly string[]): string[] {
  const problems: string[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchorsAt = (path: string) => {
    let anchors = anchorCache.get(path);
    if (!anchors) anchorCache.set(path, (anchors = anchorsOf(readFileSync(path, 'utf8'))));
    return anchors;
  };
  for (const file of files) {
    const path = join(root, file);
    for (const link of linksOf(file, readFileSync(path, 'utf8'))) {
      const hash = link.target.indexOf('#');
      const target = decodeURI(hash < 0 ? link.target : link.target.slice(0, hash));
      const anchor = hash < 0 ? undefined : decodeURIComponent(link.target.slice(hash + 1));
      const resolved = target === '' ? path : resolve(dirname(path), target);
      const where = `${file}:${link.line}: (${link.target})`;
      if (relative(root, resolved).startsWith('..')) problems.push(`${where} leaves the repository`);
      else if (!existsSync(resolved)) problems.push(`${where} names ${relative(root, resolved)}, which does not exist`);
      else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsAt(resolved).has(anchor)) {
        problems.push(`${where}: ${relative(root, resolved)} has no heading or id "${anchor}"`);
      }
    }
  }
  return problems;
}
