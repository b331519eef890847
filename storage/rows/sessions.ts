// The sessions, messages and files tables' rows and their mappings to records, one for both drivers.
import type {
  ConversationEntry, Message, MessageRole, NewMessage, NewSession, PagedMessage, PendingSession, Session, SessionFile, SessionFileMeta,
  SessionOutcome, SessionVisibility, VisibleMessage,
} from '../records/sessions.js';
import type { RowCodec } from '../row-codec.js';

export interface SessionRow {
  id: string;
  org_id: string;
  domain_id: string;
  automation_id: string;
  revision: number | null;
  visibility: SessionVisibility;
  created_by: string | null;
  origin: string;
  trigger_run_id: string | null;
  status: string;
  title: string | null;
  created_at: number;
  updated_at: number;
  outcome: SessionOutcome | null;
  outcome_set_by: string | null;
  outcome_set_at: number | null;
  archived_at: number | null;
}

/** `payload` is JSON text kept verbatim (PostgreSQL's json column is read back as `payload::text`). */
export interface MessageRow {
  id: string;
  session_id: string;
  execution_id: string | null;
  role: MessageRole;
  author_user_id: string | null;
  content: string;
  payload: string | null;
  created_at: number;
  position: number;
}

export interface FileRow {
  id: string;
  session_id: string;
  execution_id: string | null;
  name: string;
  media_type: string;
  content: Buffer;
  created_at: number;
}

export type VisibleMessageRow = Omit<MessageRow, 'payload'> & { author_name: string | null };
export type PagedMessageRow = VisibleMessageRow & { execution_position: number };

/** The columns visibleMessageFromRow reads (the payload stays unread: people never see it). */
export const VISIBLE_MESSAGE_COLUMNS = 'm.id, m.session_id, m.execution_id, m.role, m.author_user_id, m.content, m.created_at, m.position';

export const sessionFromRow = (r: SessionRow): Session => ({
  id: r.id,
  orgId: r.org_id,
  domainId: r.domain_id,
  automationId: r.automation_id,
  revision: r.revision,
  visibility: r.visibility,
  createdBy: r.created_by,
  origin: r.origin,
  triggerRunId: r.trigger_run_id,
  status: r.status,
  title: r.title,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  outcome: r.outcome ?? null,
  outcomeSetBy: r.outcome_set_by ?? null,
  outcomeSetAt: r.outcome_set_at ?? null,
  archivedAt: r.archived_at ?? null,
});

/** The insert's parameters: lifecycle columns start NULL, so they are not written; `pending` is the first turn as JSON. */
export const sessionToRow = (n: NewSession, codec: RowCodec) => ({
  id: n.id,
  org_id: n.orgId,
  domain_id: n.domainId,
  automation_id: n.automationId,
  revision: n.revision,
  visibility: n.visibility,
  created_by: n.createdBy,
  origin: n.origin,
  trigger_run_id: n.triggerRunId,
  status: n.status,
  title: n.title,
  created_at: n.createdAt,
  updated_at: n.updatedAt,
  pending: n.pending === undefined ? null : codec.toJson(n.pending),
});

export const pendingFromRow = (r: { id: string; pending: unknown }, codec: RowCodec): PendingSession => ({ id: r.id, pending: codec.json(r.pending) });

export const messageToRow = (m: NewMessage): Omit<MessageRow, 'position'> => ({
  id: m.id,
  session_id: m.sessionId,
  execution_id: m.executionId,
  role: m.role,
  author_user_id: m.authorUserId,
  content: m.content,
  payload: m.payload,
  created_at: m.createdAt,
});

/** The fields every message view shares; the payload is left to the views that carry it (people never see it). */
const messageFieldsFromRow = (r: Omit<MessageRow, 'payload'>): Omit<Message, 'payload'> => ({
  id: r.id,
  sessionId: r.session_id,
  executionId: r.execution_id,
  role: r.role,
  authorUserId: r.author_user_id,
  content: r.content,
  createdAt: r.created_at,
  position: r.position,
});

export const conversationFromRow = (r: MessageRow & { execution_position: number | null }): ConversationEntry => ({
  ...messageFieldsFromRow(r),
  payload: r.payload,
  executionPosition: r.execution_position,
});

export const visibleMessageFromRow = (r: VisibleMessageRow): VisibleMessage => ({ ...messageFieldsFromRow(r), authorName: r.author_name });

export const pagedMessageFromRow = (r: PagedMessageRow): PagedMessage => ({ ...visibleMessageFromRow(r), executionPosition: r.execution_position });

export const fileFromRow = (r: FileRow): SessionFile => ({
  id: r.id,
  sessionId: r.session_id,
  executionId: r.execution_id,
  name: r.name,
  mediaType: r.media_type,
  content: r.content,
  createdAt: r.created_at,
});

export const fileToRow = (f: SessionFile) => ({
  id: f.id,
  session_id: f.sessionId,
  execution_id: f.executionId,
  name: f.name,
  media_type: f.mediaType,
  content: f.content,
  created_at: f.createdAt,
});

export const fileMetaFromRow = (r: Omit<FileRow, 'content'> & { size_bytes: number }): SessionFileMeta => ({
  id: r.id,
  sessionId: r.session_id,
  executionId: r.execution_id,
  name: r.name,
  mediaType: r.media_type,
  createdAt: r.created_at,
  sizeBytes: r.size_bytes,
});
