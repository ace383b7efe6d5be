import type { ServerResponse } from 'node:http';

/** The pages Vigil itself draws for sign-in: no script, no outside resource, no framing. */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
} as const;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** A small HTML page: a title, a sentence, and a link (to sign in again). */
export function sendPage(res: ServerResponse, status: number, page: { title: string; message: string; link: { href: string; text: string } }): void {
  const html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} · Vigil</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2933}h1{font-size:1.4rem}</style>
</head><body><main>
<h1>${escapeHtml(page.title)}</h1>
<p data-message>${escapeHtml(page.message)}</p>
<p><a href="${escapeHtml(page.link.href)}">${escapeHtml(page.link.text)}</a></p>
</main></body></html>
`;
  res.writeHead(status, { ...PAGE_HEADERS, 'content-length': Buffer.byteLength(html) });
  res.end(html);
}
