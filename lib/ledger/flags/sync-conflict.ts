import type { FlagRule } from './rule';

/** Sync conflict: the order's folder holds a Syncthing conflict copy. */
export const syncConflict: FlagRule = {
  flag: 'sync_conflict',
  label: 'sync conflict',
  glossary: 'two machines wrote one path of the order\'s folder; Syncthing kept both',
  rule: 'raised while the order\'s folder holds a Syncthing conflict copy (*.sync-conflict-*)',
  ferry: 'C/lib.rs `read_task` (reads files by name; a conflict copy is not one of them)',
  clocks: 'none',
  raise: (f) => (f.folder.conflictCount > 0 ? { text: 'two machines wrote one path here (a Syncthing conflict copy): see Files' } : null),
};
