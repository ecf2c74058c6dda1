// The page's deep links (issue 18, interfaces §5 case 12): `/ui/c/<context>` opens a conversation,
// `/ui/subagents/<handle>` a subagent, `/ui/tasks` and `/ui/status` their tabs. The daemon answers the app on each
// (a2a/webRoute.ts VIEW_PATH); the page reads the path, and writes it as the view changes.
import { useEffect, useState } from 'preact/hooks';

export type Tab = 'chat' | 'tasks' | 'subagents' | 'status';

/** What the address names: a tab, and the conversation or subagent in view (undefined = the default one). */
export interface Route {
  tab: Tab;
  /** A conversation's context id; undefined = the caller's most recent one. */
  ctx?: string;
  /** A subagent's handle; undefined = none chosen. */
  handle?: string;
}

const decode = (part: string | undefined): string | undefined => {
  if (part === undefined || part === '') return undefined;
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
};

/** The route a path names; anything unknown is the chat. */
export function parseRoute(pathname: string): Route {
  const [, , view, id] = pathname.replace(/\/+$/, '').split('/');
  if (view === 'c') return { tab: 'chat', ...optional('ctx', decode(id)) };
  if (view === 'subagents') return { tab: 'subagents', ...optional('handle', decode(id)) };
  if (view === 'tasks' || view === 'status') return { tab: view };
  return { tab: 'chat' };
}

/** The path of a route (the inverse of parseRoute). */
export function pathOf(route: Route): string {
  if (route.tab === 'chat') return route.ctx === undefined ? '/ui' : `/ui/c/${encodeURIComponent(route.ctx)}`;
  if (route.tab === 'subagents' && route.handle !== undefined) {
    return `/ui/subagents/${encodeURIComponent(route.handle)}`;
  }
  return `/ui/${route.tab}`;
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

/**
 * The route in the address bar, kept in step with back and forward; `go` moves to another (a new history entry),
 * `replace: true` rewrites the current one (the latest conversation once it is known).
 */
export function useRoute(): [Route, (route: Route, replace?: boolean) => void] {
  const [route, setRoute] = useState<Route>(() => parseRoute(location.pathname));
  useEffect(() => {
    const onPop = () => setRoute(parseRoute(location.pathname));
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);
  const go = (next: Route, replace = false) => {
    const path = pathOf(next);
    if (path !== location.pathname) {
      if (replace) history.replaceState(null, '', path);
      else history.pushState(null, '', path);
    }
    setRoute(next);
  };
  return [route, go];
}
