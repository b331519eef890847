// The header's organization switcher: shown when the signed-in person works in more than one organization.
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from './api';
import { listOrganizations, ROLE_LABEL, selectOrganization, type Organizations } from './org';
import './org.css';

export function OrgSwitcher({ onLoaded }: { onLoaded?: (orgs: Organizations) => void }) {
  const [orgs, setOrgs] = useState<Organizations | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    listOrganizations()
      .then((answer) => {
        setOrgs(answer);
        onLoaded?.(answer);
      })
      .catch(() => undefined); // The header still works without the switcher.
  }, []);
  if (!orgs) return null;
  const current = orgs.organizations.find((o) => o.orgId === orgs.currentOrgId);
  if (orgs.organizations.length < 2) return current ? <span class="org-name">{current.name}</span> : null;

  const change = async (orgId: string) => {
    try {
      await selectOrganization(orgId);
      // A full load: every screen starts over in the organization just chosen.
      location.assign('/console/sessions');
    } catch (caught) {
      setError((caught as ApiError).message);
    }
  };
  return (
    <label class="org-switch">
      <span class="visually-hidden">Organization</span>
      <select value={orgs.currentOrgId ?? ''} onChange={(e) => void change(e.currentTarget.value)} aria-describedby={error ? 'org-switch-error' : undefined}>
        {orgs.organizations.map((o) => (
          <option key={o.orgId} value={o.orgId}>{o.name} ({ROLE_LABEL[o.role]})</option>
        ))}
      </select>
      {error && <small id="org-switch-error" role="alert" class="error">{error}</small>}
    </label>
  );
}
