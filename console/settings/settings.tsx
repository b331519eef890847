// Organization settings (issue 14 item 7): members, domains and connections, for Owners and Admins.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { canManage, listOrganizations, type ManagedDomain, type OrganizationChoice } from '../org';
import { onLinkClick, useTitle } from '../router';
import { ConnectionsSection } from './connections';
import { DomainsSection } from './domains';
import { MembersSection } from './members';
import '../org.css';

const SECTIONS = [
  { path: 'members', label: 'Members' },
  { path: 'domains', label: 'Domains' },
  { path: 'connections', label: 'Connections' },
] as const;
export type SettingsSection = (typeof SECTIONS)[number]['path'];

/** `/console/settings[/section]` -> the section, or null for an unknown one. */
export function settingsSectionOf(path: string): SettingsSection | null | undefined {
  const match = /^\/console\/settings(?:\/([^/]+))?\/?$/.exec(path);
  if (!match) return undefined;
  const section = match[1] ?? 'members';
  return SECTIONS.some((s) => s.path === section) ? (section as SettingsSection) : null;
}

export function SettingsPage({ section }: { section: SettingsSection }) {
  useTitle(`Settings · ${SECTIONS.find((s) => s.path === section)?.label}`);
  const [org, setOrg] = useState<OrganizationChoice | null | undefined>(undefined);
  const [domains, setDomains] = useState<ManagedDomain[]>([]);
  const [error, setError] = useState<string | null>(null);
  const loadDomains = () =>
    api<{ domains: ManagedDomain[] }>('GET', '/org/domains')
      .then((answer) => setDomains(answer.domains))
      .catch((failure: ApiError) => setError(failure.message));
  useEffect(() => {
    listOrganizations()
      .then((answer) => {
        const current = answer.organizations.find((o) => o.orgId === answer.currentOrgId) ?? null;
        setOrg(current);
        if (current && canManage(current.role)) void loadDomains();
      })
      .catch((failure: ApiError) => setError(failure.message));
  }, []);

  if (error) return <main class="page"><h1>Organization settings</h1><p role="alert" class="error">{error} Reload the page to try again.</p></main>;
  if (org === undefined) return <main class="page"><h1>Organization settings</h1><p role="status">Loading settings…</p></main>;
  if (!org || !canManage(org.role)) {
    return (
      <main class="page">
        <h1>Organization settings</h1>
        <p role="status" class="notice">
          Only an Owner or Admin of {org?.name ?? 'this organization'} can see and change its members, domains and connections. Ask one of them to
          make the change for you, or to give you the Admin role.
        </p>
      </main>
    );
  }
  return (
    <main class="page">
      <h1>Organization settings <small>{org.name}</small></h1>
      <nav aria-label="Settings" class="tabs">
        {SECTIONS.map((s) => (
          <a key={s.path} href={`/console/settings/${s.path}`} onClick={onLinkClick} aria-current={s.path === section ? 'page' : undefined}>{s.label}</a>
        ))}
      </nav>
      {section === 'members' && <MembersSection domains={domains} myRole={org.role} />}
      {section === 'domains' && <DomainsSection domains={domains} reload={loadDomains} />}
      {section === 'connections' && <ConnectionsSection domains={domains} />}
    </main>
  );
}
