// Members: the list with roles and status, inviting (the link is shown once), changing a role, disabling.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { Dialog } from '../dialog';
import { formatTime } from '../format';
import { ROLE_LABEL, type ManagedDomain, type Member, type OrganizationChoice } from '../org';
import { CopyButton } from './copy-button';

type Role = Member['orgRole'];
type Invited = { member: Member; invitationLink: string | null; invitationExpiresAt: string | null };
const STATUS_LABEL: Record<Member['status'], string> = { active: 'Active', invited: 'Invited', disabled: 'Disabled' };

export function MembersSection({ domains, myRole }: { domains: ManagedDomain[]; myRole: OrganizationChoice['role'] }) {
  const [members, setMembers] = useState<Member[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [message, setMessage] = useState<{ text: string; bad: boolean } | null>(null);
  const [confirming, setConfirming] = useState<Member | null>(null);
  const roles: Role[] = myRole === 'owner' ? ['owner', 'admin', 'member'] : ['admin', 'member'];
  const domainName = (id: string) => domains.find((d) => d.domainId === id)?.name ?? 'a domain';

  const page = (cursor?: string) => api<{ members: Member[]; nextCursor: string | null }>('GET', `/org/members?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
  useEffect(() => {
    page()
      .then((answer) => {
        setMembers(answer.members);
        setNextCursor(answer.nextCursor);
      })
      .catch((failure: ApiError) => setMessage({ text: failure.message, bad: true }));
  }, []);
  const more = async () => {
    const answer = await page(nextCursor ?? undefined);
    setMembers((current) => [...(current ?? []), ...answer.members]);
    setNextCursor(answer.nextCursor);
  };
  const replace = (member: Member) => setMembers((current) => (current ?? []).map((m) => (m.userId === member.userId ? member : m)));
  const act = async (work: () => Promise<{ member: Member }>, done: (m: Member) => string) => {
    try {
      const { member } = await work();
      replace(member);
      setMessage({ text: done(member), bad: false });
    } catch (caught) {
      setMessage({ text: (caught as ApiError).message, bad: true });
    }
  };
  const setRole = (member: Member, orgRole: Role) => act(() => api('PATCH', `/org/members/${member.userId}`, { orgRole }), (m) => `${m.name || m.email} is now ${ROLE_LABEL[m.orgRole]}.`);
  const setDisabled = (member: Member, disabled: boolean) =>
    act(() => api('POST', `/org/members/${member.userId}/${disabled ? 'disable' : 'enable'}`), (m) => `${m.name || m.email} is ${disabled ? 'disabled: their keys and sessions stopped working' : 'enabled again'}.`);

  return (
    <section aria-labelledby="members-title" class="stack">
      <h2 id="members-title">Members</h2>
      <InviteForm roles={roles} onInvited={(answer) => setMembers((current) => [...(current ?? []), answer.member])} />
      <p role="status" aria-live="polite" class={`message ${message?.bad ? 'error' : ''}`}>{message?.text}</p>
      {members === null && !message && <p role="status">Loading members…</p>}
      {members && (
        <ul class="list" aria-label="Members">
          {members.map((member) => {
            const ownerLocked = member.orgRole === 'owner' && myRole !== 'owner';
            return (
              <li key={member.userId}>
                <span class="grow">
                  <strong>{member.name || member.email}</strong> <small>{member.email}</small>
                  <span class="meta">
                    <span class="badge">{STATUS_LABEL[member.status]}</span>
                    {member.domainRoles.map((d) => <span key={d.domainId}>{domainName(d.domainId)}: {d.role}</span>)}
                    <span>since <time dateTime={member.createdAt}>{formatTime(member.createdAt)}</time></span>
                  </span>
                </span>
                <span class="actions">
                  <select aria-label={`Role of ${member.name || member.email}`} value={member.orgRole} disabled={ownerLocked} onChange={(e) => void setRole(member, e.currentTarget.value as Role)}>
                    {(ownerLocked ? ['owner' as Role] : roles).map((role) => <option key={role} value={role}>{ROLE_LABEL[role]}</option>)}
                  </select>
                  {member.status === 'disabled' ? (
                    <button type="button" class="secondary" onClick={() => void setDisabled(member, false)}>Enable<span class="visually-hidden"> {member.name || member.email}</span></button>
                  ) : (
                    <button type="button" class="secondary danger" disabled={ownerLocked} onClick={() => setConfirming(member)}>Disable<span class="visually-hidden"> {member.name || member.email}</span></button>
                  )}
                </span>
              </li>
            );
          })}
        </ul>
      )}
      {nextCursor && <button type="button" class="secondary" onClick={() => void more()}>Show more members</button>}
      <Dialog title="Disable this member?" open={confirming !== null} onClose={() => setConfirming(null)}>
        <p>{confirming?.name || confirming?.email} will be signed out here at once; their API keys and tokens stop working in this organization. You can enable them again later.</p>
        <div class="actions">
          <button type="button" class="secondary" onClick={() => setConfirming(null)}>Keep</button>
          <button type="button" class="danger" onClick={() => { const member = confirming; setConfirming(null); if (member) void setDisabled(member, true); }}>Disable</button>
        </div>
      </Dialog>
    </section>
  );
}

function InviteForm({ roles, onInvited }: { roles: Role[]; onInvited: (answer: Invited) => void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [orgRole, setOrgRole] = useState<Role>('member');
  const [invited, setInvited] = useState<Invited | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const answer = await api<Invited>('POST', '/org/members', { email: email.trim(), name: name.trim(), orgRole });
      setInvited(answer);
      onInvited(answer);
      setEmail('');
      setName('');
    } catch (caught) {
      setError((caught as ApiError).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card stack" aria-labelledby="invite-title" onSubmit={submit}>
      <h3 id="invite-title">Invite a person</h3>
      <div class="row">
        <label>Email<input type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} /></label>
        <label>Name<input required value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
        <label>
          Role
          <select value={orgRole} onChange={(e) => setOrgRole(e.currentTarget.value as Role)}>
            {roles.map((role) => <option key={role} value={role}>{ROLE_LABEL[role]}</option>)}
          </select>
        </label>
      </div>
      {error && <p role="alert" class="error">{error}</p>}
      {invited && (
        <div class="once" role="status">
          {invited.invitationLink ? (
            <>
              <p>Send this single-use link to {invited.member.email}; it is shown only now and works until {formatTime(invited.invitationExpiresAt)}:</p>
              <code class="secret">{invited.invitationLink}</code>
              <CopyButton value={invited.invitationLink} label="Copy the link" />
            </>
          ) : (
            <p>{invited.member.email} already has an account: they can sign in now and will find this organization.</p>
          )}
        </div>
      )}
      <button type="submit" disabled={busy}>Invite</button>
    </form>
  );
}
