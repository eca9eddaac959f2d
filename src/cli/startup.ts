// Process-wide settings made before any command runs.
import { setFlagsFromString } from 'node:v8';

/**
 * undici parses HTTP with llhttp compiled to WebAssembly. V8 tiers hot WebAssembly up with TurboFan on
 * background threads, and a process waits for those compile jobs before it exits: ~80 ms after every short
 * run (issue 15). Liftoff's baseline code parses HTTP as fast for kwatch's traffic (watch throughput measured
 * the same, 14–16k events/s either way), so the tier-up is turned off. Must run before the first request.
 */
export function tuneV8(): void {
  setFlagsFromString('--liftoff-only');
}
