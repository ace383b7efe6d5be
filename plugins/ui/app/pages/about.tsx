import { useEffect, useState } from 'preact/hooks';
import type { DaemonAbout } from 'vigil/domain';
import { getJson, messageOf } from '../api';

/** Vigil's version, the plugins it loaded, and its effective config (secrets masked by the server). */
export default function AboutPage() {
  const [about, setAbout] = useState<DaemonAbout | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    getJson<DaemonAbout>('/ui/about').then(setAbout, (failure: unknown) => setError(`the daemon's description could not be loaded: ${messageOf(failure)}`));
  }, []);
  return (
    <section class="page about">
      <h1>About Vigil</h1>
      {error && <p class="error" role="alert">{error}</p>}
      {about && (
        <>
          <p>Vigil <b data-testid="vigil-version">{about.version}</b>, an instance registry and monitor that speaks the Spring Boot Admin server's API.</p>
          <article class="card" aria-label="Plugins">
            <h2>Plugins</h2>
            <table class="grid-table">
              <thead><tr><th>Plugin</th><th>Version</th><th>From</th></tr></thead>
              <tbody>
                {about.plugins.map((plugin) => (
                  <tr key={plugin.name} data-plugin={plugin.name}>
                    <td class="mono">{plugin.name}</td>
                    <td>{plugin.version ?? <span class="muted">–</span>}</td>
                    <td class="muted">{plugin.source === 'builtin' ? 'built in' : plugin.entry}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </article>
          <article class="card" aria-label="Effective configuration">
            <h2>Effective configuration</h2>
            <p class="muted small">Defaults filled in, environment variables substituted, durations in milliseconds; secrets are shown as ******.</p>
            <pre class="config mono">{toYaml(about.config, 0)}</pre>
          </article>
        </>
      )}
    </section>
  );
}

/** A JSON value written the way the config file is (YAML block style), for reading, not parsing. */
function toYaml(value: unknown, indent: number): string {
  const pad = ' '.repeat(indent);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return value.map((item) => {
      const text = toYaml(item, indent + 2);
      return `\n${pad}- ${isBlock(item) ? text.trimStart() : text}`;
    }).join('');
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    return entries.map(([key, item]) => `\n${pad}${key}:${isBlock(item) ? toYaml(item, indent + 2) : ` ${toYaml(item, indent + 2)}`}`).join('').replace(/^\n/, indent === 0 ? '' : '\n');
  }
  return typeof value === 'string' ? (value === '' || /[:#{}[\],&*?|<>=!%@`'"]|^\s|\s$/.test(value) ? JSON.stringify(value) : value) : String(value);
}

const isBlock = (value: unknown): boolean => value !== null && typeof value === 'object' && Object.keys(value).length > 0;
