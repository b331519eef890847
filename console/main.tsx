// The console's shell: who is signed in, the header, and which page the path names.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type Me } from './api';
import { navigate, onLinkClick, usePath } from './router';
import { authoringPage, AuthoringLinks } from './authoring-routes';
import { forgetAuthoringToken } from './authoring';
import { ActivatePage } from './pages/activate';
import { ApprovalsPage } from './pages/approvals';
import { LoginPage } from './pages/login';
import { SessionPage } from './pages/session';
import { SessionsPage } from './pages/sessions';
import { triggerScreen } from './triggers/routes';
import { OperationsPage } from './pages/operations';
import { SettingsPage, settingsSectionOf } from './settings/settings';
import { OrgSwitcher } from './org-switcher';
import './styles.css';

type Who = { state: 'loading' } | { state: 'signed-out' } | { state: 'signed-in'; me: Me } | { state: 'error'; message: string };

function App() {
  const path = usePath();
  const [who, setWho] = useState<Who>({ state: 'loading' });
  const refresh = () =>
    api<Me>('GET', '/me')
      .then((me) => setWho({ state: 'signed-in', me }))
      .catch((error: ApiError) => setWho(error.status === 404 || error.status === 401 ? { state: 'signed-out' } : { state: 'error', message: error.message }));
  useEffect(() => void refresh(), []);

  if (path === '/console/activate') return <ActivatePage onSignedIn={() => refresh().then(() => navigate('/console/sessions', true))} />;
  if (who.state === 'loading') return <main class="page"><p role="status">Loading…</p></main>;
  if (who.state === 'error') return <main class="page"><p role="alert">{who.message}</p></main>;
  if (who.state === 'signed-out') return <LoginPage onSignedIn={refresh} />;

  const signOut = async () => {
    await api('POST', '/console/logout').catch(() => undefined);
    forgetAuthoringToken();
    setWho({ state: 'signed-out' });
    navigate('/console', true);
  };
  const sessionId = /^\/console\/sessions\/([^/]+)$/.exec(path)?.[1];
  const triggers = triggerScreen(path);
  const authoringView = authoringPage(path);
  const settings = settingsSectionOf(path);
  const orgPage = path === '/console/operations' ? <OperationsPage /> : settings ? <SettingsPage section={settings} /> : null;
  const known = sessionId !== undefined || triggers !== null || authoringView !== null || orgPage !== null || ['/console', '/console/', '/console/sessions', '/console/approvals'].includes(path);
  return (
    <>
      <header class="bar">
        <a class="brand" href="/console/sessions" onClick={onLinkClick}>Switchyard</a>
        <nav aria-label="Main">
          <a href="/console/sessions" onClick={onLinkClick} aria-current={path.startsWith('/console/sessions') || path === '/console' ? 'page' : undefined}>Sessions</a>
          <a href="/console/triggers" onClick={onLinkClick} aria-current={path.startsWith('/console/triggers') ? 'page' : undefined}>Triggers</a>
          <a href="/console/approvals" onClick={onLinkClick} aria-current={path === '/console/approvals' ? 'page' : undefined}>Approvals</a>
          <AuthoringLinks path={path} />
          <a href="/console/operations" onClick={onLinkClick} aria-current={path === '/console/operations' ? 'page' : undefined}>Operations</a>
          <a href="/console/settings" onClick={onLinkClick} aria-current={settings !== undefined ? 'page' : undefined}>Settings</a>
        </nav>
        <OrgSwitcher />
        <span class="who" title={who.me.email}>{who.me.name || who.me.email}</span>
        <button type="button" onClick={signOut}>Sign out</button>
      </header>
      {!known ? <NotFound /> : triggers ?? authoringView ?? orgPage ?? (sessionId ? <SessionPage key={sessionId} sessionId={decodeURIComponent(sessionId)} /> : path === '/console/approvals' ? <ApprovalsPage /> : <SessionsPage />)}
    </>
  );
}

function NotFound() {
  return (
    <main class="page">
      <h1>Page not found</h1>
      <p>The console has no page at this address. <a href="/console/sessions" onClick={onLinkClick}>Go to the sessions</a>.</p>
    </main>
  );
}

render(<App />, document.getElementById('app')!);
