#!/usr/bin/env node
/**
 * The type check and the lint in one process, on one TypeScript program: `tsc --noEmit -p .`
 * (tsconfig.json, strict) and then `eslint . --max-warnings 0` (eslint.config.mjs) given that
 * program for its type-checked rules instead of building its own (typescript-eslint's
 * `parserOptions.programs`). The same checks as `npm run typecheck` and `npm run lint`, for a
 * third less CPU than the two apart (each built the whole program). A step of `npm test`.
 *
 * Prints tsc's diagnostics and eslint's findings as they print them; exits 1 when there is any
 * (a type error, a lint error or warning), 0 when there is none.
 */
import process from 'node:process';
import ts from 'typescript';
import { ESLint } from 'eslint';

const root = process.cwd();
const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => ts.sys.newLine };

const config = ts.getParsedCommandLineOfConfigFile('tsconfig.json', { noEmit: true }, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (d) => {
    process.stderr.write(ts.formatDiagnosticsWithColorAndContext([d], host));
    process.exit(1);
  },
});
if (!config) process.exit(1);
// No build info written: the check reads the sources as they are, every time.
const options = { ...config.options, incremental: false, tsBuildInfoFile: undefined };
const program = ts.createProgram({ rootNames: config.fileNames, options, projectReferences: config.projectReferences });
const diagnostics = [...config.errors, ...ts.getPreEmitDiagnostics(program)];
if (diagnostics.length > 0) process.stdout.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
console.log(`type check: ${diagnostics.length === 0 ? 'no errors' : `${diagnostics.length} error(s)`} in ${config.fileNames.length} files`);

const eslint = new ESLint({
  overrideConfig: [{ files: ['**/*.{ts,tsx}'], languageOptions: { parserOptions: { projectService: false, programs: [program] } } }],
});
const results = await eslint.lintFiles(['.']);
const formatter = await eslint.loadFormatter('stylish');
const text = await formatter.format(results);
if (text) process.stdout.write(text);
const errors = results.reduce((n, r) => n + r.errorCount, 0);
const warnings = results.reduce((n, r) => n + r.warningCount, 0);
console.log(`lint: ${errors} error(s), ${warnings} warning(s) in ${results.length} files`);

process.exitCode = diagnostics.length === 0 && errors === 0 && warnings === 0 ? 0 : 1;
