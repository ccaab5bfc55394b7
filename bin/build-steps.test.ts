import { describe, expect, it } from 'vitest';
import { BUILD_STEPS, buildStepLine, buildStepOf } from './build-steps';

describe('the first start build, in steps', () => {
  it("maps Next's lines to steps and leaves the rest (the route table) out", () => {
    const lines = [
      '▲ Next.js 16.4.6 (webpack)',
      '  Creating an optimized production build ...',
      '✓ Compiled successfully in 41s',
      '  Running TypeScript ...',
      '  Collecting page data using 1 worker ...',
      '  Generating static pages using 1 worker (0/7) ...',
      '  Finalizing page optimization ...',
      'Route (app)',
      '┌ ƒ /',
    ];
    expect(lines.map(buildStepOf)).toEqual([null, 1, null, 2, 3, 4, 5, null, null]);
    expect(BUILD_STEPS).toHaveLength(5);
  });

  it('says the step, what it does and how long the one before took', () => {
    expect(buildStepLine(1, null)).toBe('building the dashboard, step 1 of 5: compiling the pages (the longest step)');
    expect(buildStepLine(2, 41_200)).toBe('building the dashboard, step 2 of 5: checking the types (step 1 took 41 s)');
  });
});
