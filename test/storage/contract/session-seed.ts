// Records the session-trail contract tests start from (sessions, executions, tool calls), the same on both drivers.
import type { NewExecution, NewToolCall } from '../../../storage/records/executions.js';
import type { NewMessage } from '../../../storage/records/sessions.js';
import type { DriverUnderTest } from '../../helpers/storage-drivers.js';
import { newSession, seedWorkspace } from './seed.js';

export { newSession } from './seed.js';

export const newExecution = (id: string, sessionId: string, over: Partial<NewExecution> = {}): NewExecution => ({
  id,
  sessionId,
  status: 'queued',
  input: {},
  createdBy: 'u-1',
  createdAt: 2_000,
  revision: 3,
  entry: 'message',
  grantIntegrationIds: [],
  grantExpiresAt: null,
  ...over,
});

export const newMessage = (id: string, sessionId: string, over: Partial<NewMessage> = {}): NewMessage => ({
  id,
  sessionId,
  executionId: null,
  role: 'user',
  authorUserId: 'u-1',
  content: `text of ${id}`,
  payload: null,
  createdAt: 2_000,
  ...over,
});

export const newToolCall = (id: string, executionId: string, sessionId: string, over: Partial<NewToolCall> = {}): NewToolCall => ({
  id,
  executionId,
  sessionId,
  tool: 'lookup',
  args: { q: 'x' },
  edited: false,
  identity: null,
  status: 'pending',
  createdAt: 3_000,
  callRef: `ref-${id}`,
  integrationId: null,
  readonly: false,
  approvalId: null,
  ...over,
});

/** seedWorkspace (org-1, dom-1, u-1, auto-1, ses-1) plus session s-1 through the repository under test. */
export async function seedSession(db: DriverUnderTest): Promise<void> {
  await seedWorkspace(db);
  await db.repos.sessions.insertSession(newSession('s-1'));
}
