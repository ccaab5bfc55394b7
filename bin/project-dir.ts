import path from 'node:path';
import { settings } from '../lib/config';

/** The project directory (where package.json and .next live): CLAIMBOARD_PROJECT_DIR, else the folder above this file's (bin/ or dist/). */
export const PROJECT_DIR = settings.projectDir() ?? path.resolve(import.meta.dirname, '..');
