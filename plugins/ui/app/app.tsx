import { useEffect, useState } from 'preact/hooks';
import { Lazy } from './components/lazy';
import { SignedIn } from './components/signed-in';
import { ApplicationsPage } from './pages/applications';
import { InstancePage } from './pages/instance/instance-page';
import { AuditPage, mayReadAudit } from './pages/audit';
import { JournalPage } from './pages/journal';
import { NotificationsPage } from './pages/notifications';
import { WallboardPage } from './pages/wallboard';
import { href, useRoute } from './router';
import { useStore } from './store';
import type { Connection } from './model/live-store';

const loadApplication = () => import('./pages/application/application-page');
const loadAbout = () => import('./pages/about');

const CONNECTION_TEXT: Readonly<Record<Connection, string>> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  offline: 'Offline, retrying',
};

export function App() {
  const route = useRoute();
  const store = useStore();
  const [page = '', id, tab] = route;
  // The Audit page is for those who may read the trail: asked once, the answer is the server's.
  const [audit, setAudit] = useState(false);
  useEffect(() => void mayReadAudit().then(setAudit), []);
  return (
    <div class={`shell page-${page || 'applications'}`}>
      <header class="top">
        <a class="brand" href={href()}><img src="ui/favicon.svg" alt="" width="22" height="22" /> Vigil</a>
        <nav aria-label="Pages">
          <a href={href()} aria-current={page === '' || page === 'instances' || page === 'applications' ? 'page' : undefined}>Applications</a>
          <a href={href('journal')} aria-current={page === 'journal' ? 'page' : undefined}>Journal</a>
          <a href={href('wallboard')} aria-current={page === 'wallboard' ? 'page' : undefined}>Wallboard</a>
          <a href={href('about')} aria-current={page === 'about' ? 'page' : undefined}>About</a>
          <a href={href('notifications')} aria-current={page === 'notifications' ? 'page' : undefined}>Notifications</a>
          {audit && <a href={href('audit')} aria-current={page === 'audit' ? 'page' : undefined}>Audit</a>}
        </nav>
        <span class="spacer" />
        <span class={`connection conn-${store.connection}`} role="status" data-connection={store.connection}>{CONNECTION_TEXT[store.connection]}</span>
        <SignedIn />
      </header>
      {store.error && <p class="banner error" role="alert">{store.error}</p>}
      <main>
        {page === 'instances' && id ? <InstancePage id={id} tab={tab} />
          : page === 'applications' && id ? <Lazy key={id} load={loadApplication} props={{ name: id, tab }} />
          : page === 'about' ? <Lazy load={loadAbout} props={{}} />
          : page === 'journal' ? <JournalPage />
            : page === 'wallboard' ? <WallboardPage />
              : page === 'notifications' ? <NotificationsPage />
              : page === 'audit' ? <AuditPage />
              : <ApplicationsPage />}
      </main>
    </div>
  );
}
