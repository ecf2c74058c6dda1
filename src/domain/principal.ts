// Who may reach what (reference §3.3): the one rule that the operator, and work acting for nobody (the startup
// prompt, timers), reach every conversation and see the whole instance; any other principal only its own.

/** True for the operator and for work acting for nobody (`null`): they see and reach everything. */
export function actsForAll(principal: string | null): principal is 'operator' | null {
  return principal === null || principal === 'operator';
}

/**
 * Why work on behalf of `principal` may not run in (or deliver into) a conversation owned by `owner`, or null when
 * it may: a conversation of nobody's is anyone's.
 */
export function ownershipRefusal(owner: string | null, principal: string | null): string | null {
  if (actsForAll(principal) || owner === null || owner === principal) return null;
  return 'the conversation belongs to another principal';
}

/**
 * Why a message.send delivery from `principal`'s turn may not be accepted into `to`, whose owner is `owner`
 * (undefined: no such conversation yet), or null. Anyone may start a new conversation or write to root; the
 * operator and work for nobody reach anything; anyone else its own conversations, and a named one that does not
 * exist yet unless the name is in another principal's namespace (`<principal>/…`, as A2A contexts are): the
 * caller then opens it for the sender before the accept, so no one else can take it before the delivery runs.
 */
export function deliveryRefusal(to: string, owner: string | null | undefined, principal: string | null): string | null {
  if (to === 'new' || actsForAll(principal)) return null;
  if (owner !== undefined) return ownershipRefusal(owner, principal);
  const slash = to.indexOf('/');
  if (slash > 0 && to.slice(0, slash) !== principal) return "the name is in another principal's namespace";
  return null;
}
