import { describe, expect, it } from 'vitest';
import Sim from '../../src/commands/sim.js';
import { DEFAULT_SIM_CHURN, globalFlags } from '../../src/cli/flags.js';

describe('the sim churn default', () => {
  it('is the same for `kwatch sim --churn` and `--sim-churn`', () => {
    expect(Sim.flags.churn.default).toBe(String(DEFAULT_SIM_CHURN));
    expect(globalFlags['sim-churn'].default).toBe(String(DEFAULT_SIM_CHURN));
  });
});
