// What asks a running instance to reload (interfaces §3.6): SIGHUP, and with `--watch-config` a change to one of
// its config files (watched through their directories, so an editor's or a ConfigMap's replace-by-rename is seen).
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { ReloadSource } from '../runtime/reload.js';

/** Changes closer together than this are one reload (a write often arrives as several events). */
const SETTLE_MS = 250;

type Reload = (source: ReloadSource) => unknown;

/**
 * Installs the triggers before the runtime starts (a SIGHUP then must not end the process); what they ask for
 * before `attach` hands over the runtime's reload waits for it, and one reload then covers it all.
 */
export function trapReloads(opts: { files: readonly string[]; watchFiles: boolean; cwd: string; log: Logger }): {
  attach(reload: Reload): void;
  remove(): void;
} {
  let target: Reload | null = null;
  let pending: ReloadSource | null = null;
  let removed = false;
  const reload = (source: ReloadSource): void => {
    if (removed) return;
    if (target === null) pending = source;
    else target(source);
  };
  const onHangup = (): void => reload('signal');
  process.on('SIGHUP', onHangup);
  const watching = opts.watchFiles ? watchConfigFiles({ ...opts, reload }) : null;
  return {
    attach: (next) => {
      target = next;
      if (pending !== null) next(pending);
      pending = null;
    },
    remove: () => {
      removed = true;
      process.off('SIGHUP', onHangup);
      watching?.close();
      target = null;
      pending = null;
    },
  };
}

/** Watches the files' directories; `close` also drops a change still settling (nothing reloads after it). */
export function watchConfigFiles(opts: {
  reload(source: ReloadSource): unknown;
  files: readonly string[];
  cwd: string;
  log: Logger;
  settleMs?: number;
}): { close(): void } {
  let timer: NodeJS.Timeout | undefined;
  const soon = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => void opts.reload('watch'), opts.settleMs ?? SETTLE_MS);
    timer.unref();
  };
  const byDir = new Map<string, Set<string>>();
  for (const file of opts.files.map((f) => resolve(opts.cwd, f))) {
    byDir.set(dirname(file), (byDir.get(dirname(file)) ?? new Set()).add(basename(file)));
  }
  const watchers: FSWatcher[] = [];
  for (const [dir, names] of byDir) {
    try {
      const w = watch(dir, { persistent: false }, (_kind, name) => {
        if (name === null || names.has(String(name))) soon();
      });
      w.on('error', (err) => opts.log.warn('config.watch.failed', { dir, err: describeError(err) }));
      watchers.push(w);
    } catch (err) {
      opts.log.warn('config.watch.failed', { dir, err: describeError(err) });
    }
  }
  return {
    close: () => {
      clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
