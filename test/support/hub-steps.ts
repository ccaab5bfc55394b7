/**
 * Runs a hub channel set through steps in this process and prints what each rescan said, as
 * JSON: for lib/hub's tests of folders that cannot be read, which run this as a process the
 * folders' modes apply to (root without capabilities). Usage:
 *   node --conditions=react-server --import tsx test/support/hub-steps.ts '<json>'
 * where the JSON is `{specs, parents, steps}` and each step is `["rescan"]` or `["chmod", path, mode]`.
 */
import fs from 'node:fs';
import type { ChannelSpec } from '../../lib/hub/args';
import { ChannelSet, type ChannelChanges } from '../../lib/hub/channel-set';

type Step = readonly ['rescan'] | readonly ['chmod', string, number];

const input = JSON.parse(process.argv[2] ?? '{}') as { specs: ChannelSpec[]; parents: string[]; steps: Step[] };
const set = new ChannelSet(input.specs, input.parents);
const said: ChannelChanges[] = [];
for (const step of input.steps) {
  if (step[0] === 'rescan') said.push(set.rescan());
  else fs.chmodSync(step[1], step[2]);
}
process.stdout.write(JSON.stringify(said));
