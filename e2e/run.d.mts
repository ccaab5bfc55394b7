export declare const FIXTURES: readonly ['main', 'actions', 'ferry'];
type Fixture = (typeof FIXTURES)[number];
export interface E2ERun {
  readonly ports: Readonly<Record<Fixture, number>>;
  readonly dir: string;
}
export declare function chooseRun(): E2ERun;
export declare function e2eRun(): E2ERun;
export declare function fixtureDir(name: Fixture): string;
export declare function passStop(child: import('node:child_process').ChildProcess): void;
