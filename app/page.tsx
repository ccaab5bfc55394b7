/**
 * Home: what claimboard is, until the board replaces this page.
 * A server component with no client JavaScript.
 */

const questions = [
  {
    title: 'What needs a human now?',
    body: 'Which work nobody is serving, and why: stale claims, give-ups, double runs, late results, identities that hold work they will never finish.',
  },
  {
    title: 'Who held what?',
    body: 'The claim history of every order and every agent: who took it, when it arrived here, and who let it go, operator decisions included.',
  },
  {
    title: 'Act, safely.',
    body: 'Signed operator actions: retire an identity, re\u2011queue, reopen, acknowledge a give\u2011up. Each is checked against what you saw and written back as a record the fleet reads.',
  },
] as const;

const stateOptions = [
  ['--json', 'one JSON object: orders, problems, ledger'],
  ['--now <rfc3339>', 'evaluate at this time on this machine’s clock'],
  ['--stale-after <seconds>', 'when a silent claim counts as stale (default 300)'],
] as const;

export default function HomePage() {
  return (
    <main className="mx-auto max-w-3xl px-6 py-14 sm:py-20">
      <header>
        <p className="text-sm font-medium tracking-wide text-sky-700 uppercase dark:text-sky-400">Operator console</p>
        <h1 className="mt-2 text-4xl font-semibold tracking-tight text-zinc-950 sm:text-5xl dark:text-white">
          claimboard
        </h1>
        <p className="mt-5 text-lg leading-relaxed text-zinc-700 dark:text-zinc-300">
          For fleets of machines that coordinate by writing signed files into a folder Syncthing carries (a ferryman
          channel). No server in the middle: any machine holding a copy of the folder can answer, from that copy alone.
        </p>
      </header>

      <section aria-labelledby="answers" className="mt-12">
        <h2 id="answers" className="text-sm font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">
          It answers
        </h2>
        <ul className="mt-4 grid gap-4 sm:grid-cols-3">
          {questions.map((q) => (
            <li
              key={q.title}
              className="rounded-lg border border-zinc-200 bg-zinc-50 p-5 dark:border-zinc-800 dark:bg-zinc-900"
            >
              <h3 className="font-semibold text-zinc-950 dark:text-white">{q.title}</h3>
              <p className="mt-2 text-sm leading-relaxed text-zinc-700 dark:text-zinc-300">{q.body}</p>
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="clocks" className="mt-12">
        <h2 id="clocks" className="text-xl font-semibold tracking-tight text-zinc-950 dark:text-white">
          One rule about time
        </h2>
        <p className="mt-3 leading-relaxed text-zinc-700 dark:text-zinc-300">
          No comparison of clocks between machines decides anything. Staleness is measured on this machine’s clock,
          from when a file arrived here, and it is advisory: it tells you where to look, never what happened.
        </p>
      </section>

      <section aria-labelledby="status" className="mt-12">
        <h2 id="status" className="text-xl font-semibold tracking-tight text-zinc-950 dark:text-white">
          The board comes next
        </h2>
        <p className="mt-3 leading-relaxed text-zinc-700 dark:text-zinc-300">
          The live board (lanes, order timelines, agent pages and action dialogs) is being built. Today the same
          derivation runs from a terminal:
        </p>
        <pre className="mt-4 overflow-x-auto rounded-lg bg-zinc-900 px-5 py-4 text-sm leading-relaxed text-zinc-100 dark:bg-zinc-900 dark:ring-1 dark:ring-zinc-800">
          <code>
            <span className="text-zinc-500 select-none">$ </span>
            npx claimboard state <span className="text-sky-300">&lt;channel&gt;</span>
          </code>
        </pre>
        <dl className="mt-4 grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
          {stateOptions.map(([flag, meaning]) => (
            <div key={flag} className="contents">
              <dt>
                <code className="rounded bg-zinc-100 px-1.5 py-0.5 text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100">
                  {flag}
                </code>
              </dt>
              <dd className="text-zinc-700 dark:text-zinc-300">{meaning}</dd>
            </div>
          ))}
        </dl>
        <p className="mt-4 text-sm leading-relaxed text-zinc-600 dark:text-zinc-400">
          <code>&lt;channel&gt;</code> is the channel root, the folder Syncthing carries. Exit status 0 means the
          folder was read, even when it has problems; 1 means it could not be read; 2 means bad usage.
        </p>
      </section>

      <footer className="mt-16 border-t border-zinc-200 pt-6 text-sm text-zinc-500 dark:border-zinc-800 dark:text-zinc-400">
        The rules live in <code>LEDGER.md</code>; the design in <code>DESIGN.md</code>.
      </footer>
    </main>
  );
}
