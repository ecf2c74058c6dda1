// A principal's storage quotas (`a2a.principals[].quotas`: message_bytes, conversations, stored_bytes), checked
// before a message is accepted or a conversation created: a refusal names the quota, its limit and the principal,
// and nothing is stored. Pure: the caller counts what the principal holds and what it has on its way.
import { principalId } from '../a2a/principals.js';
import type { A2aPrincipalConfig, PrincipalQuotas } from '../config/types.js';
import { DaemonError } from '../errors.js';

export type CountedQuota = 'message_bytes' | 'conversations' | 'stored_bytes';

/** What the principal holds now (stored, plus accepted and not yet written), and what the message would add. */
export interface QuotaUse {
  /** Conversations the principal owns, and new ones its accepted messages will create. */
  conversations: number;
  /** Their stored bytes, and the bytes of its accepted messages not yet in them. */
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
    (use.newConversation ? conversationRefusal(principal, quotas, use.conversations) : null) ??
    over('stored_bytes', use.storedBytes + use.messageBytes)
  );
}

/** The quotas configured for `principal` (an id as principalId makes it), or undefined. */
export function quotasOf(
  principals: readonly A2aPrincipalConfig[],
  principal: string | null,
): PrincipalQuotas | undefined {
  if (principal === null) return undefined;
  return principals.find((p) => principalId(p) === principal)?.quotas;
}

/**
 * The conversations quota alone, for a conversation created without a message (steering a fresh context, a side
 * task, message.send to "new"): null when it fits.
 */
export function conversationRefusal(
  principal: string,
  quotas: PrincipalQuotas | undefined,
  conversations: number,
): QuotaRefusal | null {
  const limit = quotas?.conversations;
  const wanted = conversations + 1;
  return limit !== undefined && wanted > limit ? { quota: 'conversations', limit, principal, wanted } : null;
}

/** A refused message or conversation: code `quota_exceeded`, not retryable (the same request stays refused). */
export class QuotaExceeded extends DaemonError {
  override name = 'QuotaExceeded';
  constructor(readonly refusal: QuotaRefusal) {
    const { quota, limit, principal, wanted } = refusal;
    const unit = quota === 'conversations' ? 'conversations' : 'bytes';
    super(
      'quota_exceeded',
      `quota ${quota} exceeded for principal ${principal}: limit ${limit} ${unit}, this message needs ${wanted}`,
      false,
    );
  }
}
