// Which addresses an `http` step may not reach unless it sets `allow_private` (producers reference §2.8 `http`,
// "SSRF-guarded"): loopback, private, link-local, unique-local and unspecified ranges. Pure: no node:* imports.

const V4_PRIVATE: readonly (readonly [number, number, number])[] = [
  // [first octet, second octet low, second octet high]; -1 = any second octet.
  [0, -1, -1],
  [10, -1, -1],
  [127, -1, -1],
  [169, 254, 254],
  [172, 16, 31],
  [192, 168, 168],
  [100, 64, 127],
];

function v4Private(address: string): boolean | null {
  const parts = address.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p))) return null;
  const [a, b] = parts.map(Number) as [number, number];
  return V4_PRIVATE.some(([first, low, high]) => a === first && (low === -1 || (b >= low && b <= high)));
}

/** True when `address` (an IPv4 or IPv6 literal) is loopback, private, link-local or unspecified. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  const v4 = v4Private(bare);
  if (v4 !== null) return v4;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped) return v4Private(mapped[1] as string) ?? true;
  if (bare === '::' || bare === '::1') return true;
  // fc00::/7 unique-local, fe80::/10 link-local.
  return /^f[cd][0-9a-f]{0,2}:/.test(bare) || /^fe[89ab][0-9a-f]?:/.test(bare);
}

/**
 * The first private address `url`'s host is or resolves to (through `lookup`, the caller's DNS), else null: the
 * check an `http` step and an A2A peer make before every request.
 */
export async function privateAddressOf(url: URL, lookup: (host: string) => Promise<string[]>): Promise<string | null> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = /^[\d.]+$|:/.test(host) ? [host] : await lookup(host);
  return addresses.find(isPrivateAddress) ?? null;
}
