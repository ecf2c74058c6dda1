// A principal's storage quotas (`a2a.principals[].quotas`: message_bytes, conversations, stored_bytes), checked
// before a message is accepted: a refusal names the quota, its limit and the principal, and nothing is stored.
// Pure: the caller counts what the principal holds.
import type { PrincipalQuotas } from '../config/types.js';

export type CountedQuota = 'message_bytes' | 'conversations' | 'stored_bytes';

/** What the principal holds now, and what the message would add. */
export interface QuotaUse {
  /** Conversations the principal owns. */
  conversations: number;
  /** Their stored bytes. */
  storedBytes: number;
  /** The message's size (UTF-8 bytes). */
  messageBytes: number;
  /** The message would start a conversation the principal does not own yet. */
  newConversation: boolean;
}

export interface QuotaRefusal {
  quota: CountedQuota;
  limit: number;
  principal: string;
  /** What the message would have made of it. */
  wanted: number;
}

/** The first quota the message would pass, or null when it fits them all. */
export function quotaRefusal(
  principal: string,
  quotas: PrincipalQuotas | undefined,
  use: QuotaUse,
): QuotaRefusal | null {
  const over = (quota: CountedQuota, wanted: number): QuotaRefusal | null => {
    const limit = quotas?.[quota];
    return limit !== undefined && wanted > limit ? { quota, limit, principal, wanted } : null;
  };
  return (
    over('message_bytes', use.messageBytes) ??
    (use.newConversation ? over('conversations', use.conversations + 1) : null) ??
    over('stored_bytes', use.storedBytes + use.messageBytes)
  );
}

/** A refused message, as the caller hears it (a JSON-RPC error naming the quota, its limit and the principal). */
export class QuotaExceeded extends Error {
  override name = 'QuotaExceeded';
  constructor(readonly refusal: QuotaRefusal) {
    const { quota, limit, principal, wanted } = refusal;
    const unit = quota === 'conversations' ? 'conversations' : 'bytes';
    super(`quota ${quota} exceeded for principal ${principal}: limit ${limit} ${unit}, this message needs ${wanted}`);
  }
}
