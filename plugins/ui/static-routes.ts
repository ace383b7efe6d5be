import type { ServerResponse } from 'node:http';
import sirv from 'sirv';
import { varyOnWrite } from '../../core/kits/runtime/index.js';
import type { HttpRoutes, VigilRequest } from '../../core/plugin-api.js';
import { wantsJsonNotHtml } from './accept.js';
import { ASSET_PREFIX, INDEX_FILE } from './app-folder.js';

/** File names the bundler gives a content hash (`app-3F2KQ7ZA.js`): they never change, so caches may keep them. */
const HASHED = /-[A-Z0-9]{8}\.(?:js|css)(?:\.map)?$/;

/**
 * Everything the page may load comes from Vigil itself: no CDN, no inline script, no framing by
 * other sites. Inline `style` attributes are not needed either: the app sets styles through the DOM.
 * Sent with every file of the dashboard, so no file opened on its own is treated more loosely.
 */
const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

/**
 * The dashboard's two routes, kept clear of the API: the page at the context root (`/`), and its
 * assets under `/ui/`. The app's own views are hash routes (`/#/journal`), which never reach the server.
 */
export function staticRoutes(http: HttpRoutes, folder: string): void {
  const files = sirv(folder, {
    dev: false, // the built app does not change while the daemon runs: scan the folder once
    etag: true,
    extensions: [], // no guessing `/ui/x` → `/ui/x.html`
    gzip: true,
    brotli: true,
    setHeaders(res, pathname) {
      res.setHeader('cache-control', HASHED.test(pathname) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  const serve = (req: VigilRequest, res: ServerResponse, path: string) => {
    // sirv reads the path from `req.url`; the context path is not part of the folder's layout.
    req.url = path;
    files(req, res, () => http.sendError(req, res, 404, `no dashboard file ${req.path}`));
  };

  http.route(['GET', 'HEAD'], '/', (req, res) => {
    secure(res);
    // The page varies with Accept (JSON clients get a 406); sirv writes its own `Vary:
    // Accept-Encoding` over whatever was set, so the name is added when the head goes out.
    varyOnWrite(res, 'Accept');
    if (wantsJsonNotHtml(req)) {
      const api = `${http.contextPath}/applications and ${http.contextPath}/instances`;
      http.sendError(req, res, 406, `this is the dashboard, an HTML page; the JSON API is at ${api}`);
      return;
    }
    // The page links its assets relative to itself (`ui/app.js`), which needs the slash after a context path.
    if (!req.path.endsWith('/')) {
      const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
      res.writeHead(308, { location: `${req.path}/${query}`, 'content-length': '0' }).end();
      return;
    }
    serve(req, res, `/${INDEX_FILE}`);
  }, { action: 'dashboard.read' });

  // The path below the context path, still percent-encoded: sirv decodes it and knows only the files it scanned.
  http.route(['GET', 'HEAD'], `/${ASSET_PREFIX}/*`, (req, res) => {
    secure(res);
    serve(req, res, req.path.slice(http.contextPath.length));
  }, { action: 'dashboard.read' });
}

/** The page's security headers on every answer of the dashboard: files, redirects and errors alike. */
function secure(res: ServerResponse): void {
  for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
}
