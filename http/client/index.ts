// The client module (`switchyard/client`): typed HTTP client, session stream follower, webhook verification.
export {
  createSwitchyardClient,
  SwitchyardHttpError,
  type ErrorCode,
  type ErrorEnvelope,
  type RunCompletedWebhook,
  type SessionEvent,
  type SessionEventEnvelope,
  type SessionView,
  type SwitchyardClient,
  type SwitchyardClientOptions,
} from './client.js';
export type { components, operations, paths, webhooks } from './schema.js';
export { followSession, type FollowSessionOptions } from './session-stream.js';
export { verifyWebhook, WebhookVerificationError } from './webhooks.js';
