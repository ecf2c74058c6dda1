// Pure plan operations behind the plan.* tools (reference §2.3, §9.5): create, update, insert, reorder.
// Never mutates its input: every success returns a new plan; every failure is an error value for the model.
import type { Plan, PlanItem } from '../domain/plan.js';

export type PlanStatus = PlanItem['status'];

/** A plan.create item: a bare title or `{title, detail?}`. */
export type PlanItemInput = string | { title: string; detail?: string };

/** An item reference as the model gives it: the item's id, or its title. */
export type PlanItemRef = number | string;

export interface PlanInsert {
  title: string;
  detail?: string;
  /** The item to insert after; absent ⇒ append at the end. */
  after?: PlanItemRef;
}

/** plan.update's arguments: edit one item, insert one, and/or reorder all, applied in that order. */
export interface PlanUpdateArgs {
  item?: PlanItemRef;
  status?: PlanStatus;
  note?: string;
  title?: string;
  detail?: string;
  /** Binds the item to a subagent: its end settles the item (see `settleBound`). */
  bind?: { subagent: string };
  insert?: PlanInsert;
  reorder?: number[];
}

export type PlanResult = { ok: true; plan: Plan } | { ok: false; error: string };

const fail = (error: string): PlanResult => ({ ok: false, error });

/** A new plan of pending items with ids from 1; refused past `maxItems` or with a blank goal or title. */
export function createPlan(goal: string, items: PlanItemInput[], now: number, maxItems: number): PlanResult {
  const trimmedGoal = goal.trim();
  if (trimmedGoal === '') return fail('a plan needs a non-empty goal');
  if (items.length > maxItems) return fail(`a plan holds at most ${maxItems} items (got ${items.length})`);
  const built: PlanItem[] = [];
  for (const [index, input] of items.entries()) {
    const title = (typeof input === 'string' ? input : input.title).trim();
    if (title === '') return fail(`plan item ${index + 1} has an empty title`);
    const detail = typeof input === 'string' ? undefined : input.detail;
    built.push(newItem(index + 1, title, detail, now));
  }
  return { ok: true, plan: { goal: trimmedGoal, items: built, next_id: built.length + 1, created: now, updated: now } };
}

/** Applies an item edit, then an insert, then a reorder; any invalid part refuses the whole update. */
export function updatePlan(plan: Plan, args: PlanUpdateArgs, now: number, maxItems: number): PlanResult {
  const editing = hasItemEdit(args);
  if (args.item === undefined && !editing && args.insert === undefined && args.reorder === undefined) {
    return fail('nothing to update: give item with status, note, title or detail; or insert; or reorder');
  }
  let items = plan.items.map((item) => ({ ...item }));
  let nextId = plan.next_id;
  if (args.item !== undefined || editing) {
    const edited = editItem(items, args, now);
    if (typeof edited === 'string') return fail(edited);
    items = edited;
  }
  if (args.insert !== undefined) {
    if (items.length >= maxItems) return fail(`a plan holds at most ${maxItems} items; cannot insert another`);
    const inserted = insertItem(items, args.insert, nextId, now);
    if (typeof inserted === 'string') return fail(inserted);
    items = inserted;
    nextId += 1;
  }
  if (args.reorder !== undefined) {
    const reordered = reorderItems(items, args.reorder);
    if (typeof reordered === 'string') return fail(reordered);
    items = reordered;
  }
  return { ok: true, plan: { ...plan, items, next_id: nextId, updated: now } };
}

/** The index of the item `ref` names: an id, else an exact title, else a case-insensitive title, else a numeric id. */
export function findPlanItem(items: PlanItem[], ref: PlanItemRef): number {
  if (typeof ref === 'number') return items.findIndex((item) => item.id === ref);
  const exact = items.findIndex((item) => item.title === ref);
  if (exact >= 0) return exact;
  const folded = ref.trim().toLowerCase();
  const loose = items.findIndex((item) => item.title.trim().toLowerCase() === folded);
  if (loose >= 0) return loose;
  return /^\d+$/.test(ref.trim()) ? items.findIndex((item) => item.id === Number(ref.trim())) : -1;
}

function newItem(id: number, title: string, detail: string | undefined, now: number): PlanItem {
  const item: PlanItem = { id, title, status: 'pending', updated: now };
  const trimmed = detail?.trim() ?? '';
  if (trimmed !== '') item.detail = trimmed;
  return item;
}

function hasItemEdit(args: PlanUpdateArgs): boolean {
  const { status, note, title, detail, bind } = args;
  return (
    status !== undefined || note !== undefined || title !== undefined || detail !== undefined || bind !== undefined
  );
}

/**
 * The plan with every item bound to subagent `handle` settled by its end: `done` when it completed, else `blocked`
 * with `note` (reference §1.9 step 4, turn reference §2.3); the binding goes with it. Null when no item is bound.
 */
export function settleBound(plan: Plan, handle: string, ok: boolean, note: string, now: number): Plan | null {
  if (!plan.items.some((item) => item.bound?.subagent === handle)) return null;
  const items = plan.items.map((item): PlanItem => {
    if (item.bound?.subagent !== handle) return item;
    const { bound: _settled, ...rest } = item;
    return { ...rest, status: ok ? 'done' : 'blocked', note, updated: now };
  });
  return { ...plan, items, updated: now };
}

function describeRef(ref: PlanItemRef): string {
  return typeof ref === 'number' ? `with id ${ref}` : `"${ref}"`;
}

function knownIds(items: PlanItem[]): string {
  return items.length === 0 ? 'the plan has no items' : `ids are ${items.map((item) => item.id).join(', ')}`;
}

/** The items with one edited, or an error string. Empty note/detail clear the field. */
function editItem(items: PlanItem[], args: PlanUpdateArgs, now: number): PlanItem[] | string {
  if (args.item === undefined) return 'status, note, title and detail need item (the id or title of an item)';
  if (!hasItemEdit(args)) return 'item given without a change: add status, note, title or detail';
  const index = findPlanItem(items, args.item);
  const current = items[index];
  if (current === undefined) return `no plan item ${describeRef(args.item)} (${knownIds(items)})`;
  const item: PlanItem = { ...current, updated: now };
  if (args.status !== undefined) item.status = args.status;
  if (args.title !== undefined) {
    if (args.title.trim() === '') return 'an item title cannot be empty';
    item.title = args.title.trim();
  }
  setOptional(item, 'note', args.note);
  setOptional(item, 'detail', args.detail);
  if (args.bind !== undefined) item.bound = { subagent: args.bind.subagent };
  const next = [...items];
  next[index] = item;
  return next;
}

function setOptional(item: PlanItem, field: 'note' | 'detail', value: string | undefined): void {
  if (value === undefined) return;
  if (value.trim() === '') delete item[field];
  else item[field] = value.trim();
}

function insertItem(items: PlanItem[], insert: PlanInsert, id: number, now: number): PlanItem[] | string {
  const title = insert.title.trim();
  if (title === '') return 'an inserted item needs a non-empty title';
  let position = items.length;
  if (insert.after !== undefined) {
    const index = findPlanItem(items, insert.after);
    if (index < 0) return `insert.after: no plan item ${describeRef(insert.after)} (${knownIds(items)})`;
    position = index + 1;
  }
  const next = [...items];
  next.splice(position, 0, newItem(id, title, insert.detail, now));
  return next;
}

/** A new order that lists every current id exactly once, or an error string. */
function reorderItems(items: PlanItem[], order: number[]): PlanItem[] | string {
  const byId = new Map(items.map((item) => [item.id, item]));
  const seen = new Set<number>();
  const next: PlanItem[] = [];
  for (const id of order) {
    const item = byId.get(id);
    if (item === undefined) return `reorder: no plan item with id ${id} (${knownIds(items)})`;
    if (seen.has(id)) return `reorder: id ${id} is listed twice`;
    seen.add(id);
    next.push(item);
  }
  if (next.length !== items.length) return `reorder must list every item id exactly once (${knownIds(items)})`;
  return next;
}
