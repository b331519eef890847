// Owns which URLs may receive outbound webhooks: http(s), no credentials in the URL, no private or loopback address
// unless configuration allows it (SSRF guard; delivery checks again on the address actually dialled).
import { validation } from '../errors.js';
import { isPrivateAddress, type ResolveAll } from '../tools/network-guard.js';

export const WEBHOOK_URL_MAX_LENGTH = 2_048;

const refuse = (message: string) => validation('The webhook URL is not allowed.', { issues: [{ path: 'url', message }] });

export async function checkWebhookUrl(raw: string, options: { allowPrivateNetworks: boolean; resolveAll?: ResolveAll }): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('must be an absolute http or https URL');
  // Credentials in a URL end up in logs and delivery records; the signature authenticates us to the receiver.
  if (url.username !== '' || url.password !== '') throw refuse('must not carry a user name or password');
  if (url.hash !== '') throw refuse('must not have a fragment');
  if (options.allowPrivateNetworks) return url;
  let isPrivate: boolean;
  try {
    isPrivate = await isPrivateAddress(url.hostname, options.resolveAll);
  } catch {
    throw refuse('its host name could not be resolved');
  }
  if (isPrivate) throw refuse('is a private or loopback address; private networks are not allowed by this service\'s configuration');
  return url;
}
