// Domain records for sessions, their messages and files (storage/repos/sessions.repo.ts and session-list.repo.ts map them).
import type { CreatedCursor } from './paging.js';

export type SessionVisibility = 'personal' | 'domain';
export type MessageRole = 'user' | 'assistant' | 'system' | 'tool';
export type SessionOutcome = 'resolved' | 'unresolved' | 'escalated';

export interface Session {
  id: string;
  orgId: string;
  domainId: string;
  automationId: string;
  revision: number | null;
  visibility: SessionVisibility;
  createdBy: string | null;
  origin: string;
  triggerRunId: string | null;
  status: string;
  title: string | null;
  createdAt: number;
  updatedAt: number;
  /** Lifecycle (migration 0170): how it ended, who said so and when; null until set. */
  outcome: SessionOutcome | null;
  outcomeSetBy: string | null;
  outcomeSetAt: number | null;
  archivedAt: number | null;
}

/** What an insert writes: a new session has no lifecycle yet. */
export type NewSession = Omit<Session, 'outcome' | 'outcomeSetBy' | 'outcomeSetAt' | 'archivedAt'> & {
  /** The first turn the execution side has yet to write (runtime/execution/materializer.ts); stored as JSON until written. */
  pending?: unknown;
};

/** A session whose first turn is still to be written, with that turn as it was accepted. */
export interface PendingSession {
  id: string;
  pending: unknown;
}

export interface Message {
  id: string;
  sessionId: string;
  executionId: string | null;
  role: MessageRole;
  authorUserId: string | null;
  /** The text a person reads (user message, assistant answer); a short label for tool rows. */
  content: string;
  /**
   * JSON text: an assistant step's tool calls, or a tool row's result. Kept as text: the conversation is read every
   * turn and only the current turn's payloads are parsed (runtime/turns/conversation.ts), not every earlier one.
   */
  payload: string | null;
  createdAt: number;
  /** Dense per-session order, assigned at insert. */
  position: number;
}

export type NewMessage = Omit<Message, 'position'>;

/** A message with the position of its execution in the session (null for messages outside any execution). */
export interface ConversationEntry extends Message {
  executionPosition: number | null;
}

/** A message as people read it: no payload, with its author's display name (null when unknown or deleted). */
export interface VisibleMessage extends Omit<Message, 'payload'> {
  authorName: string | null;
}

/** A visible message of a list page, with its turn's position (the page's keyset is (turn, message position)). */
export interface PagedMessage extends VisibleMessage {
  executionPosition: number;
}

export interface SessionFile {
  id: string;
  sessionId: string;
  executionId: string | null;
  name: string;
  mediaType: string;
  content: Buffer;
  createdAt: number;
}

export type SessionFileMeta = Omit<SessionFile, 'content'> & { sizeBytes: number };

/** Filters and keyset bound of one session list page (both engines); `before` is the last row of the previous page. */
export interface SessionListQuery {
  status: string | null;
  createdFrom: number;
  createdTo: number;
  before: CreatedCursor | null;
  limit: number;
}
