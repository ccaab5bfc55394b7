import { type FlagRule, words } from './rule';

/**
 * Send-backs in a row that make a review loop. Two are the review working (a worker may need a
 * second try); at three with no person's review among them, or three with the same reason, the
 * automatic reviewer and the worker are going round: each will go on for ever, only a person ends it.
 */
export const REVIEW_LOOP_SENDBACKS = 3;

/**
 * Review loop: the order is changes-requested, and the reviews of its last
 * REVIEW_LOOP_SENDBACKS revisions all sent the work back, with no person's review among them or
 * all with the same reason.
 */
export const reviewLoop: FlagRule = {
  flag: 'review_loop',
  label: 'review loop',
  glossary: 'revision after revision is sent back: the reviewer and the worker are going round, and only a person ends it',
  rule: `raised while the order is changes-requested and the reviews of its last ${REVIEW_LOOP_SENDBACKS} revisions all sent the work back, none by a person (a roster operator) or all with one reason`,
  ferry: 'C/lib.rs `Task::state_at` (the latest revision\'s review decides; a send-back makes ChangesRequested, the worker\'s next start writes the next revision)',
  clocks: 'none: revisions are numbered by the worker',
  raise: (f) => {
    if (f.state !== 'changes_requested' || f.latest === null || f.latest < REVIEW_LOOP_SENDBACKS) return null;
    const last = [];
    for (let rev = f.latest; rev > f.latest - REVIEW_LOOP_SENDBACKS; rev--) {
      const r = f.folder.reviews.find((v) => v.record.revision === rev)?.record;
      if (!r || r.accepted) return null;
      last.push(r);
    }
    const reasons = new Set(last.map((r) => (r.notes ?? '').trim()));
    const byPerson = last.some((r) => f.ctx.persons?.has(r.reviewer) === true);
    if (byPerson && reasons.size > 1) return null;
    const reviewers = words([...new Set(last.map((r) => r.reviewer))].sort());
    const why = reasons.size === 1 ? `each time "${[...reasons][0]}"` : 'no person among the reviewers';
    return {
      text: `${reviewers} sent back revisions ${f.latest - REVIEW_LOOP_SENDBACKS + 1} to ${f.latest} in a row (${why}): a review loop only a person ends; ${f.holder ?? 'the worker'} will write revision ${f.latest + 1} at its next start; review it yourself, or supersede it with a clearer order`,
    };
  },
};
