/**
 * A document a provider's answer links to (Braintree's fee report): the link is the provider's to send, so it is
 * fetched only from where that provider keeps its files, never wherever it points. Allowed: the origin the provider's
 * API is reached at (its own, or the configured fake's or staging's), or https on one of the provider's hosts (or a
 * subdomain); no credentials in the link. A redirect is refused, not followed: the next hop is not checked.
 */
export interface DocumentHosts {
  /** the origin the provider's API is called at (e.g. `https://payments.braintree-api.com`) */
  apiOrigin: string;
  /** the provider's and its storage's domains, reached over https only */
  domains: readonly string[];
}

/** Why a link is refused, or undefined when it may be fetched. */
export function refusedLink(link: string, hosts: DocumentHosts): string | undefined {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return 'not a URL';
  }
  if (url.username || url.password) return 'a URL with credentials';
  if (url.origin === new URL(hosts.apiOrigin).origin) return undefined;
  if (url.protocol !== 'https:') return `${url.protocol.replace(':', '')}, not https`;
  const host = url.hostname.toLowerCase();
  if (!hosts.domains.some((domain) => host === domain || host.endsWith(`.${domain}`))) return `host ${host} is not the provider's`;
  return undefined;
}

/** Fetches the provider's document at `link` once its host is checked, refusing a redirect; throws why it would not. */
export async function fetchProviderDocument(link: string, hosts: DocumentHosts, signal?: AbortSignal): Promise<Response> {
  const refused = refusedLink(link, hosts);
  if (refused) throw new Error(`Provider document link refused: ${refused}`);
  const response = await fetch(link, { redirect: 'manual', ...(signal ? { signal } : {}) });
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw new Error(`Provider document link refused: it redirects (HTTP ${response.status})`);
  }
  return response;
}
